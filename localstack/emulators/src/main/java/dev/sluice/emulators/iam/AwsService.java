package dev.sluice.emulators.iam;

import java.util.List;
import java.util.Map;

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

    /**
     * The encryption context the service sends with the KMS call it makes on the caller's behalf for
     * a request on {@code resourceArn}, as each service documents it (the keys a key policy conditions
     * with {@code kms:EncryptionContext:<key>}): Kinesis the stream's ARN, DynamoDB the table's name
     * and the account, S3 the bucket's ARN (Sluice's lake uses S3 Bucket Keys; without them it would
     * be the object's ARN), SQS the queue's ARN, Secrets Manager the secret's ARN, Logs the log
     * group's ARN. Empty for services that make no KMS call.
     */
    public Map<String, List<String>> encryptionContext(String resourceArn, String account) {
        String prefix = "kms:EncryptionContext:";
        return switch (this) {
            case KINESIS -> Map.of(prefix + "aws:kinesis:arn", List.of(before(resourceArn, "/consumer/")));
            case DYNAMODB ->
                !resourceArn.contains(":table/")
                        ? Map.of()
                        : Map.of(
                                prefix + "aws:dynamodb:tableName",
                                List.of(before(resourceArn.substring(resourceArn.indexOf(":table/") + 7), "/")),
                                prefix + "aws:dynamodb:subscriberId",
                                List.of(account));
            case S3 -> Map.of(prefix + "aws:s3:arn", List.of(before(resourceArn, "/")));
            case SQS -> Map.of(prefix + "aws:sqs:arn", List.of(resourceArn));
            case SECRETS_MANAGER -> Map.of(prefix + "SecretARN", List.of(resourceArn));
            case LOGS -> Map.of(prefix + "aws:logs:arn", List.of(before(resourceArn, ":log-stream:")));
            case KMS, CLOUDWATCH -> Map.of();
        };
    }

    private static String before(String value, String separator) {
        int at = value.indexOf(separator, value.startsWith("arn:aws:s3:::") ? "arn:aws:s3:::".length() : 0);
        return at < 0 ? value : value.substring(0, at);
    }

    /** Whether an access gate fronts this service (it has an emulator). */
    public boolean gated() {
        return this == KINESIS || this == DYNAMODB || this == S3 || this == SQS;
    }
}
