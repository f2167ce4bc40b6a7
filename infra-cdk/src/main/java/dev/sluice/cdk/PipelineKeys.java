package dev.sluice.cdk;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.AnyPrincipal;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.IGrantable;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.kms.Key;
import software.constructs.Construct;

/**
 * The customer-managed KMS keys of one pipeline: one per kind of store, each with rotation on and a
 * key policy that pins its use to the service that stores the data.
 *
 * <p>A key's policy denies the cryptographic operations ({@link #CRYPTO_ACTIONS}) to every caller
 * that is not an AWS service principal, unless the request comes through one of the key's services
 * ({@code kms:ViaService}). So a role granted {@code kms:Decrypt} by a {@code grant*} helper can
 * decrypt stream records only by reading the stream, never by handing ciphertext to KMS itself, and
 * cannot use the streams' key for anything but Kinesis. The logs key has no service to go through:
 * only CloudWatch Logs (a service principal, limited by encryption context to the pipeline's log
 * groups) may use it.
 *
 * <p>Key administration stays with the account (the CDK's default statement delegating to IAM):
 * the deny applies to data operations only. Seven keys cost USD 7 a month per pipeline instead of one.
 */
public final class PipelineKeys {

    /** The operations that encrypt or decrypt data, which the key policies pin to their services. */
    public static final List<String> CRYPTO_ACTIONS =
            List.of("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*");

    /** Sid of the statement of each key policy that pins the key to its services. */
    public static final String PIN_STATEMENT_SID = "OnlyThroughItsServices";

    /** What a key encrypts, and the services (their {@code kms:ViaService} prefixes) that may use it. */
    public enum Use {
        /** Kinesis streams (server-side encryption). */
        STREAMS("Kinesis streams", List.of("kinesis")),
        /** DynamoDB tables: serving, aggregate, lake ledger, KCL leases. */
        TABLES("DynamoDB tables", List.of("dynamodb")),
        /** The S3 lake bucket (and reference objects in it). */
        LAKE("S3 lake bucket", List.of("s3")),
        /**
         * SQS dead-letter queues: raw records, PII included. A key of their own, so that no grant on
         * the alarm topic's key (CloudWatch's) reaches them.
         */
        DEAD_LETTERS("SQS dead-letter queues (raw records)", List.of("sqs")),
        /** The SNS alarm topic, which CloudWatch alarms publish to. */
        MESSAGING("SNS alarm topic", List.of("sns")),
        /** Secrets Manager secrets (tokenization keys). */
        SECRETS("Secrets Manager secrets", List.of("secretsmanager")),
        /** CloudWatch Logs log groups: used by the CloudWatch Logs service principal only. */
        LOGS("CloudWatch Logs log groups", List.of());

        private final String description;
        private final List<String> services;

        Use(String description, List<String> services) {
            this.description = description;
            this.services = services;
        }

        /** The use whose key encrypts the stores of {@code service} ({@code kinesis}, {@code sqs}, ...). */
        public static Use forService(String service) {
            for (Use use : values()) {
                if (use.services.contains(service)) {
                    return use;
                }
            }
            throw new IllegalArgumentException("no pipeline key for service '" + service + "'");
        }

        /** What the key encrypts, for its description. */
        public String description() {
            return description;
        }

        /**
         * The service names ({@code kinesis}, {@code s3}, ...) whose requests may use the key; empty for
         * the logs key, which only the CloudWatch Logs service principal uses.
         */
        public List<String> services() {
            return services;
        }

        /** {@code streams}, {@code tables}, ...: the last part of the key's alias. */
        public String aliasName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The construct id of the key: {@code StreamsKey}, {@code TablesKey}, ... */
        public String constructId() {
            return LogicalNames.pascal(aliasName()) + "Key";
        }
    }

    private final Map<Use, Key> keys = new EnumMap<>(Use.class);
    private final String region;

    PipelineKeys(Construct scope, String pipeline) {
        this.region = Stack.of(scope).getRegion();
        for (Use use : Use.values()) {
            Key key = Key.Builder.create(scope, use.constructId())
                    .description("Sluice pipeline " + pipeline + ": " + use.description())
                    .enableKeyRotation(true)
                    .alias("alias/sluice/" + pipeline + "/" + use.aliasName())
                    .build();
            key.addToResourcePolicy(pin(use, region));
            keys.put(use, key);
        }
    }

    /**
     * Denies data operations to every principal that is not an AWS service, unless the request comes
     * through one of the key's services (always, for the logs key).
     */
    private static PolicyStatement pin(Use use, String region) {
        Map<String, Object> conditions = new java.util.LinkedHashMap<>();
        conditions.put("Bool", Map.of("aws:PrincipalIsAWSService", "false"));
        if (!use.services().isEmpty()) {
            conditions.put("StringNotEquals", Map.of("kms:ViaService", viaServices(use, region)));
        }
        return PolicyStatement.Builder.create()
                .sid(PIN_STATEMENT_SID)
                .effect(Effect.DENY)
                .principals(List.of(new AnyPrincipal()))
                .actions(CRYPTO_ACTIONS)
                .resources(List.of("*"))
                .conditions(conditions)
                .build();
    }

    /** {@code <service>.<region>.amazonaws.com} for each of the use's services. */
    static List<String> viaServices(Use use, String region) {
        return use.services().stream()
                .map(service -> service + "." + region + ".amazonaws.com")
                .toList();
    }

    /** The key for this use. */
    public Key get(Use use) {
        return keys.get(use);
    }

    /** Every key, by use. */
    public Map<Use, Key> all() {
        return Collections.unmodifiableMap(keys);
    }

    /**
     * {@code actions} on the key of {@code use}, only in requests its services make on the grantee's
     * behalf: the identity-side twin of the key policy's pin, for grants made without a construct's
     * {@code grant*} helper.
     */
    void grantVia(IGrantable grantee, Use use, List<String> actions) {
        grantee.getGrantPrincipal()
                .addToPrincipalPolicy(PolicyStatement.Builder.create()
                        .actions(actions)
                        .resources(List.of(get(use).getKeyArn()))
                        .conditions(Map.of("StringEquals", Map.of("kms:ViaService", viaServices(use, region))))
                        .build());
    }
}
