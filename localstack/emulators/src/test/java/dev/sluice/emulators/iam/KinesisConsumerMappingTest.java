package dev.sluice.emulators.iam;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kinesis consumer operations are authorized on the consumer, however the request names it. */
class KinesisConsumerMappingTest {

    private static final RequestMapper MAPPER = new RequestMapper("us-east-1", "000000000000");
    private static final String STREAM = "arn:aws:kinesis:us-east-1:000000000000:stream/views";

    @Test
    void describeStreamConsumerByStreamAndNameIsAuthorizedOnTheConsumer() {
        AccessRequest request =
                only("DescribeStreamConsumer", "{\"StreamARN\":\"" + STREAM + "\",\"ConsumerName\":\"app\"}");
        assertThat(request.action()).isEqualTo("kinesis:DescribeStreamConsumer");
        assertThat(request.resource()).isEqualTo(STREAM + "/consumer/app:*");
    }

    @Test
    void subscribeToShardIsAuthorizedOnItsConsumerArnAndDecrypts() {
        String consumer = STREAM + "/consumer/app:1765000000";
        AccessRequest request = only("SubscribeToShard", "{\"ConsumerARN\":\"" + consumer + "\",\"ShardId\":\"s\"}");
        assertThat(request.resource()).isEqualTo(consumer);
        assertThat(request.keyUse()).isEqualTo(KeyUse.DECRYPT);
    }

    @Test
    void registerStreamConsumerIsAuthorizedOnTheStream() {
        AccessRequest request =
                only("RegisterStreamConsumer", "{\"StreamARN\":\"" + STREAM + "\",\"ConsumerName\":\"app\"}");
        assertThat(request.resource()).isEqualTo(STREAM);
    }

    private static AccessRequest only(String operation, String body) {
        GateRequest request = new GateRequest(
                "POST",
                "/",
                null,
                Map.of("Content-Type", "application/x-amz-json-1.1", "X-Amz-Target", "Kinesis_20131202." + operation),
                body.getBytes(StandardCharsets.UTF_8));
        ServiceCall call = MAPPER.map(AwsService.KINESIS, request, null);
        assertThat(call.requests()).hasSize(1);
        return call.requests().get(0);
    }
}
