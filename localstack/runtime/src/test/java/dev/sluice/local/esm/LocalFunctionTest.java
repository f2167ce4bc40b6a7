package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the local runtime records of each invocation: its batch and how long the handler ran. */
class LocalFunctionTest {

    /** Answers every batch as complete; throws on a batch whose first record is keyed {@code boom}. */
    public static class AcceptingHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {
        @Override
        public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
            if (event.getRecords().get(0).getKinesis().getPartitionKey().equals("boom")) {
                throw new IllegalStateException("boom");
            }
            return new StreamsEventResponse();
        }
    }

    private static String event(String... keys) {
        StringBuilder records = new StringBuilder();
        for (int i = 0; i < keys.length; i++) {
            records.append(i == 0 ? "" : ",")
                    .append("{\"eventSource\":\"aws:kinesis\",\"eventID\":\"shardId-000000000000:")
                    .append(i + 1)
                    .append("\",\"kinesis\":{\"kinesisSchemaVersion\":\"1.0\",\"partitionKey\":\"")
                    .append(keys[i])
                    .append("\",\"sequenceNumber\":\"")
                    .append(i + 1)
                    .append("\",\"data\":\"e30=\"}}");
        }
        return "{\"Records\":[" + records + "]}";
    }

    @Test
    void eachReturnedInvocationIsTimedWithItsBatchSize() throws Exception {
        LocalFunction function = LocalFunction.load("f", AcceptingHandler.class.getName(), Map.of());

        function.invoke(event("a", "b", "c"));
        function.invoke(event("d"));
        assertThatThrownBy(() -> function.invoke(event("boom", "e"))).isInstanceOf(LocalFunction.FunctionError.class);

        assertThat(function.timings())
                .as("a handler that threw is not a billed batch of ours to time")
                .extracting(LocalFunction.Timing::records)
                .containsExactly(3, 1);
        assertThat(function.timings()).allSatisfy(t -> assertThat(t.nanos()).isPositive());
    }
}
