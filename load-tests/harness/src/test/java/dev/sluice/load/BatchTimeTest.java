package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.planner.AwsLatencyModel;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchTimeTest {

    @Test
    void requestsAreTimedByOperationAndResource() {
        RequestCounts counts = new RequestCounts();
        for (int i = 1; i <= 100; i++) {
            counts.record("DynamoDb", "PutItem", "t", 1);
            counts.time("DynamoDb", "PutItem", "t", i * 1_000_000L);
        }
        counts.record("S3", "PutObject", "b", 1);

        RequestCounts.Row put = counts.rows().get(0);
        assertThat(put.operation()).isEqualTo("PutItem");
        assertThat(put.timing().attempts()).isEqualTo(100);
        assertThat(put.timing().p50Millis()).isCloseTo(50, within(0.5));
        assertThat(put.timing().p99Millis()).isCloseTo(99, within(1.0));
        assertThat(put.timing().totalSeconds()).isCloseTo(5.05, within(0.05));
        assertThat(counts.rows().get(1).timing()).as("counted, never timed").isNull();
    }

    @Test
    void aBatchsTimeIsTheFunctionsCallsAddedUpPerBatchAndTheirOverlap() {
        // ten batches of 99 records, 100 ms each
        StageCapacity stage = StageCapacity.lambda(
                "validate", 100, 1, Collections.nCopies(10, new StageCapacity.Batch(99, 100.0)), 500);
        List<LoadResult.Request> requests = List.of(
                new LoadResult.Request(
                        "function",
                        "DynamoDb",
                        "PutItem",
                        "t",
                        990,
                        990,
                        0,
                        new RequestCounts.Timing(990, 4.04, 3.0, 20.0, 4.0)),
                new LoadResult.Request(
                        "function", "S3", "PutObject", "b", 10, 10, 0, new RequestCounts.Timing(10, 30, 30, 30, 0.3)),
                new LoadResult.Request(
                        "event-source mapping",
                        "Kinesis",
                        "GetRecords",
                        "s",
                        20,
                        20,
                        0,
                        new RequestCounts.Timing(20, 15, 15, 15, 9.0)));

        List<BatchTime> rows = BatchTime.of(stage, requests, new AwsLatencyModel(1));

        assertThat(rows).extracting(BatchTime::operation).containsExactly("DynamoDb PutItem", "S3 PutObject");
        BatchTime put = rows.get(0);
        assertThat(put.callsPerBatch()).isCloseTo(99, within(1e-9));
        assertThat(put.millisPerBatch()).isCloseTo(400, within(1e-9));
        assertThat(put.inFlight()).isCloseTo(4.0, within(1e-9));
        assertThat(put.modelP50Millis()).isEqualTo(6);
        assertThat(put.modelP99Millis()).isEqualTo(18);
        assertThat(put.line())
                .isEqualTo("DynamoDb PutItem on t: 99.0 a batch, 3.0 ms p50 / 20 p99 each (AWS model 6.0 / 18);"
                        + " 400 ms a batch added up, 4.0 in flight");
        assertThat(BatchTime.of(stage, requests, null).get(0).modelP50Millis()).isNaN();
    }
}
