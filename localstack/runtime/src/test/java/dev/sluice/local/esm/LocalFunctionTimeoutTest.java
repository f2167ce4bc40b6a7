package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The local Lambda runtime enforces the function's timeout as Lambda does: the invocation fails as
 * timed out, the next one runs in a fresh execution environment, and the timed-out one is not stopped
 * (what it had in flight may still land).
 */
class LocalFunctionTimeoutTest {

    private static String batch(String... sequences) {
        StringBuilder json = new StringBuilder("{\"Records\":[");
        for (int i = 0; i < sequences.length; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("{\"kinesis\":{\"kinesisSchemaVersion\":\"1.0\",\"partitionKey\":\"k\",")
                    .append("\"sequenceNumber\":\"")
                    .append(sequences[i])
                    .append("\",\"data\":\"e30=\",\"approximateArrivalTimestamp\":1.7E9},")
                    .append("\"eventSource\":\"aws:kinesis\",\"eventVersion\":\"1.0\",")
                    .append("\"eventID\":\"shardId-000000000000:")
                    .append(sequences[i])
                    .append("\",\"eventName\":\"aws:kinesis:record\",\"awsRegion\":\"us-east-1\"}");
        }
        return json.append("]}").toString();
    }

    @Test
    @org.junit.jupiter.api.Timeout(60) // without the runtime's timeout the first invocation never returns
    void anInvocationPastItsTimeoutFailsAndTheRetryRunsInAFreshEnvironmentWhileTheOldOneStillRuns() throws Exception {
        StallingHandler.ENVIRONMENTS.set(0);
        StallingHandler.FINISHED.set(0);
        StallingHandler.release = new CountDownLatch(1);
        LocalFunction function =
                LocalFunction.load("stalling", StallingHandler.class.getName(), Map.of(), Duration.ofMillis(300));

        assertThatThrownBy(() -> function.invoke(batch("1", "2", "3")))
                .isInstanceOf(LocalFunction.FunctionError.class)
                .hasMessageContaining("Task timed out");
        assertThat(function.timeouts()).isEqualTo(1);
        assertThat(function.retriedTimeouts()).isZero();

        function.invoke(batch("1", "2"));
        assertThat(function.retriedTimeouts()).as("record 3 is not durable yet").isZero();
        function.invoke(batch("3", "4"));

        assertThat(function.retriedTimeouts()).isEqualTo(1);
        assertThat(StallingHandler.ENVIRONMENTS)
                .as("a fresh environment after the time-out")
                .hasValue(2);
        assertThat(StallingHandler.FINISHED)
                .as("the timed-out invocation still runs")
                .hasValue(2);
        StallingHandler.release.countDown();
        Awaitility.await().until(() -> StallingHandler.FINISHED.get() == 3);
    }
}
