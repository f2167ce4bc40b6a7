package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * As in Lambda, an execution environment runs one invocation at a time: two batches invoked at once
 * (two shards) run in two environments, each with its own handler (and so its own clients and item
 * writers), and a later invocation reuses an idle one instead of starting a third.
 */
class LocalFunctionEnvironmentsTest {

    private static final String BATCH = "{\"Records\":[{\"kinesis\":{\"kinesisSchemaVersion\":\"1.0\","
            + "\"partitionKey\":\"k\",\"sequenceNumber\":\"1\",\"data\":\"e30=\","
            + "\"approximateArrivalTimestamp\":1.7E9},\"eventSource\":\"aws:kinesis\",\"eventVersion\":\"1.0\","
            + "\"eventID\":\"shardId-000000000000:1\",\"eventName\":\"aws:kinesis:record\",\"awsRegion\":\"us-east-1\"}]}";

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void concurrentInvocationsRunInSeparateEnvironmentsAndALaterOneReusesAnIdleOne() throws Exception {
        EnvironmentHandler.ENVIRONMENTS.set(0);
        EnvironmentHandler.USED.clear();
        LocalFunction function = LocalFunction.load(
                "environments", EnvironmentHandler.class.getName(), Map.of(), Duration.ofSeconds(30));

        EnvironmentHandler.together = new CyclicBarrier(2);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> invoke(function));
        CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> invoke(function));
        first.join();
        second.join();

        assertThat(EnvironmentHandler.USED)
                .as("two invocations at once, two environments")
                .hasSize(2);
        assertThat(function.environments()).isEqualTo(2);

        EnvironmentHandler.together = null;
        invoke(function);
        invoke(function);
        assertThat(EnvironmentHandler.ENVIRONMENTS)
                .as("idle environments are reused")
                .hasValue(2);
        assertThat(function.environments()).isEqualTo(2);
    }

    private static String invoke(LocalFunction function) {
        try {
            return function.invoke(BATCH);
        } catch (LocalFunction.FunctionError e) {
            throw new IllegalStateException(e);
        }
    }
}
