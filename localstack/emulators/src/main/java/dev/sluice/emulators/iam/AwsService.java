package dev.sluice.emulators.iam;

/**
 * The AWS services of an authorization, with their IAM action prefix. The access gate fronts
 * {@link #KINESIS}, {@link #DYNAMODB}, {@link #S3} and {@link #SQS}; the others have no emulator and
 * are only authorized directly (a secret read and its implied KMS call, a key used directly, metrics,
 * dashboards, alarms and logs).
 */
public enum AwsService {
    KINESIS("kinesis"),
    DYNAMODB("dynamodb"),
    S3("s3"),
    SQS("sqs"),
    SECRETS_MANAGER("secretsmanager"),
    KMS("kms"),
    CLOUDWATCH("cloudwatch"),
    LOGS("logs");

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
        // CloudWatch's endpoint is monitoring.<region>.amazonaws.com
        return (this == CLOUDWATCH ? "monitoring" : prefix) + "." + region + ".amazonaws.com";
    }

    /** Whether an access gate fronts this service (it has an emulator). */
    public boolean gated() {
        return this == KINESIS || this == DYNAMODB || this == S3 || this == SQS;
    }
}
