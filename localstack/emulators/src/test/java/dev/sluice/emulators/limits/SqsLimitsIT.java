package dev.sluice.emulators.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchRequestTooLongException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The real SDK (SQS's JSON protocol) through the SQS gate in front of ElasticMQ, which by itself
 * takes any body up to 1 MiB whatever the queue says: a message longer than its queue's {@code
 * MaximumMessageSize} (256 KiB unless the queue sets it), body and attributes counted, is refused as
 * AWS refuses it, and nothing of it reaches the queue. IAM is off here: the limits hold without it.
 */
class SqsLimitsIT {

    private static LocalAws aws;
    private static SqsClient sqs;

    @BeforeAll
    static void start() {
        aws = LocalAws.start(
                LocalAwsOptions.builder().accessGates(false).limits(true).build());
        sqs = aws.sqs(aws.credentialsProvider()); // through the gate
    }

    @AfterAll
    static void stop() {
        if (aws != null) {
            aws.close();
        }
    }

    private static List<Message> receiveAll(String url) {
        return sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).messageAttributeNames("All"))
                .messages();
    }

    @Test
    void aMessageOfExactly256KiBIsSentAndOneByteMoreIsRefusedWithInvalidParameterValue() {
        String url = sqs.createQueue(b -> b.queueName("plain")).queueUrl();

        sqs.sendMessage(b -> b.queueUrl(url).messageBody("a".repeat(262_144)));
        assertThatThrownBy(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("b".repeat(262_145))))
                .isInstanceOfSatisfying(SqsException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidParameterValue");
                    assertThat(e.awsErrorDetails().errorMessage())
                            .isEqualTo("One or more parameters are invalid. Reason: Message must be shorter than"
                                    + " 262144 bytes.");
                });

        assertThat(receiveAll(url))
                .singleElement()
                .satisfies(m -> assertThat(m.body()).startsWith("a"));
    }

    @Test
    void theBodyIsCountedInBytesAndTheAttributesCountToo() {
        String url = sqs.createQueue(b -> b.queueName("attributes")).queueUrl();
        // 131,073 two-byte characters: 262,146 bytes
        assertThatThrownBy(() -> sqs.sendMessage(b -> b.queueUrl(url).messageBody("é".repeat(131_073))))
                .isInstanceOf(SqsException.class)
                .hasMessageContaining("Message must be shorter than 262144 bytes");
        // 262,100 bytes of body + "reason" (6) + "String" (6) + 40 bytes of value = 262,152
        MessageAttributeValue reason = MessageAttributeValue.builder()
                .dataType("String")
                .stringValue("r".repeat(40))
                .build();
        assertThatThrownBy(() -> sqs.sendMessage(b ->
                        b.queueUrl(url).messageBody("a".repeat(262_100)).messageAttributes(Map.of("reason", reason))))
                .isInstanceOf(SqsException.class)
                .hasMessageContaining("Message must be shorter than 262144 bytes");
        MessageAttributeValue shorter =
                reason.toBuilder().stringValue("r".repeat(32)).build(); // 262,144
        sqs.sendMessage(
                b -> b.queueUrl(url).messageBody("a".repeat(262_100)).messageAttributes(Map.of("reason", shorter)));

        assertThat(receiveAll(url)).hasSize(1);
    }

    @Test
    void aQueuesOwnMaximumMessageSizeHoldsBelowAndAboveTheDefault() {
        String small = sqs.createQueue(
                        b -> b.queueName("small").attributesWithStrings(Map.of("MaximumMessageSize", "1024")))
                .queueUrl();
        String large = sqs.createQueue(
                        b -> b.queueName("large").attributesWithStrings(Map.of("MaximumMessageSize", "1048576")))
                .queueUrl();

        assertThatThrownBy(() -> sqs.sendMessage(b -> b.queueUrl(small).messageBody("a".repeat(1_025))))
                .isInstanceOf(SqsException.class)
                .hasMessageContaining("Message must be shorter than 1024 bytes");
        sqs.sendMessage(b -> b.queueUrl(large).messageBody("a".repeat(1_048_576)));

        assertThat(receiveAll(small)).isEmpty();
        assertThat(receiveAll(large)).hasSize(1);
    }

    @Test
    void aBatchWhoseMessagesTogetherPassTheLimitIsRefusedWhole() {
        String url = sqs.createQueue(b -> b.queueName("batch")).queueUrl();
        List<SendMessageBatchRequestEntry> entries = List.of(0, 1, 2).stream()
                .map(i -> SendMessageBatchRequestEntry.builder()
                        .id("e" + i)
                        .messageBody("a".repeat(100_000))
                        .build())
                .toList();

        assertThatThrownBy(() -> sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries)))
                .isInstanceOf(BatchRequestTooLongException.class);
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries.subList(0, 2)));

        assertThat(receiveAll(url)).hasSize(2);
    }
}
