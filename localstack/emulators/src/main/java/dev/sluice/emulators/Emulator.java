package dev.sluice.emulators;

/** The emulators of the local AWS stack, one per AWS service. */
public enum Emulator {
    /** Amazon Kinesis Data Streams: kinesis-mock (npm {@code kinesis-local}), a Node child process. */
    KINESIS("kinesis-mock"),
    /** Amazon DynamoDB: dynalite, a Node child process. */
    DYNAMODB("dynalite"),
    /** Amazon S3: s3proxy with a transient (in-memory) blob store, embedded in the JVM. */
    S3("s3proxy"),
    /** Amazon SQS: ElasticMQ, embedded in the JVM. */
    SQS("elasticmq");

    private final String displayName;

    Emulator(String displayName) {
        this.displayName = displayName;
    }

    /** The emulator's own name, as used in log files and messages ({@code kinesis-mock}). */
    public String displayName() {
        return displayName;
    }
}
