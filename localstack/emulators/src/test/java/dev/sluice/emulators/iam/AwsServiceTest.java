package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AwsServiceTest {

    private static final String ACCOUNT = "000000000000";

    @Test
    void kinesisSendsTheStreamArnAlsoForAConsumer() {
        String stream = "arn:aws:kinesis:us-east-1:000000000000:stream/payments-raw";
        assertThat(AwsService.KINESIS.encryptionContext(stream + "/consumer/c:1", ACCOUNT))
                .containsExactly(Map.entry("kms:EncryptionContext:aws:kinesis:arn", List.of(stream)));
    }

    @Test
    void dynamoDbSendsTheTableNameAndTheAccount() {
        assertThat(AwsService.DYNAMODB.encryptionContext(
                        "arn:aws:dynamodb:us-east-1:000000000000:table/payments-by-id/index/by-customer", ACCOUNT))
                .containsOnly(
                        Map.entry("kms:EncryptionContext:aws:dynamodb:tableName", List.of("payments-by-id")),
                        Map.entry("kms:EncryptionContext:aws:dynamodb:subscriberId", List.of(ACCOUNT)));
    }

    @Test
    void s3WithBucketKeysSendsTheBucketArn() {
        assertThat(AwsService.S3.encryptionContext("arn:aws:s3:::lake/payments/2026/01/x.json", ACCOUNT))
                .containsExactly(Map.entry("kms:EncryptionContext:aws:s3:arn", List.of("arn:aws:s3:::lake")));
    }

    @Test
    void sqsSecretsManagerAndLogsSendTheirResourceArn() {
        String queue = "arn:aws:sqs:us-east-1:000000000000:payments-dlq";
        String secret = "arn:aws:secretsmanager:us-east-1:000000000000:secret:tokenization";
        String group = "arn:aws:logs:us-east-1:000000000000:log-group:/aws/lambda/payments-validate";
        assertThat(AwsService.SQS.encryptionContext(queue, ACCOUNT))
                .containsExactly(Map.entry("kms:EncryptionContext:aws:sqs:arn", List.of(queue)));
        assertThat(AwsService.SECRETS_MANAGER.encryptionContext(secret, ACCOUNT))
                .containsExactly(Map.entry("kms:EncryptionContext:SecretARN", List.of(secret)));
        assertThat(AwsService.LOGS.encryptionContext(group + ":log-stream:local", ACCOUNT))
                .containsExactly(Map.entry("kms:EncryptionContext:aws:logs:arn", List.of(group)));
    }

    @Test
    void servicesWithoutAnImpliedKeyUseSendNone() {
        assertThat(AwsService.CLOUDWATCH.encryptionContext("*", ACCOUNT)).isEmpty();
        assertThat(AwsService.KMS.encryptionContext("arn:aws:kms:us-east-1:000000000000:key/k", ACCOUNT))
                .isEmpty();
    }
}
