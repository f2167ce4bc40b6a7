package dev.sluice.emulators.iam;

/** The AWS services the access gate fronts, with their IAM action prefix. */
public enum AwsService {
    KINESIS("kinesis"),
    DYNAMODB("dynamodb"),
    S3("s3"),
    SQS("sqs");

    private final String prefix;

    AwsService(String prefix) {
        this.prefix = prefix;
    }

    /** The IAM action prefix ({@code kinesis}) and the service part of {@code <prefix>.<region>.amazonaws.com}. */
    public String prefix() {
        return prefix;
    }

    /** The action {@code <prefix>:<name>}. */
    public String action(String name) {
        return prefix + ":" + name;
    }

    /** The service endpoint name AWS sets as {@code kms:ViaService}. */
    public String viaService(String region) {
        return prefix + "." + region + ".amazonaws.com";
    }
}
