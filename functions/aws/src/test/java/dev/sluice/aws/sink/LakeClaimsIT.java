package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.ClaimingSink;
import dev.sluice.core.stage.DeduplicatingSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The lake claimed through the deduplicate table (claim mode, any parallelization factor) against
 * the real emulators: the gate writes each event's object key on its item, the lake writes exactly
 * the assigned events, as {@code BatchProcessor} wires them.
 */
@ExtendWith(LocalAwsExtension.class)
class LakeClaimsIT {

    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(4);
    private static final String SHARD = "shardId-000000000000";

    @AfterAll
    static void stopWriters() {
        WRITERS.shutdownNow();
    }

    private record Stage(DynamoDbStateSink gate, S3LakeSink lake, String bucket, String table) {

        /** Gates a batch and claims its lake events; what the lake is then to write. */
        Pending gateOnly(List<ProcessedEvent> events) throws SinkException {
            ClaimingSink.Plan plan = lake.plan(events);
            DeduplicatingSink.Gated gated = gate.writeAndGate(events, lake, plan);
            List<ProcessedEvent> assigned = new ArrayList<>();
            for (ProcessedEvent event : events) {
                if (!gated.resent().contains(event.position())
                        && !gated.inLake().contains(event.position())) {
                    assigned.add(event);
                }
            }
            // re-sends are kept out of the lake (as BatchProcessor does), not counted by it
            return new Pending(
                    this,
                    plan,
                    assigned,
                    events.size() - assigned.size() - gated.resent().size());
        }

        SinkReport deliver(List<ProcessedEvent> events) throws SinkException {
            return gateOnly(events).writeLake();
        }
    }

    private record Pending(Stage stage, ClaimingSink.Plan plan, List<ProcessedEvent> assigned, int absorbed) {
        SinkReport writeLake() throws SinkException {
            return assigned.isEmpty() ? new SinkReport(0, absorbed) : stage.lake.write(plan, assigned, absorbed);
        }
    }

    private static Stage stage(LocalAws aws, ResourceNames names) {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        String table = Tables.create(aws, names.name("by-id"), "pk");
        return new Stage(
                new DynamoDbStateSink(aws.dynamoDb(), table, "eventId", WRITERS, true),
                // no ledger in claim mode: the table name is never used
                new S3LakeSink(aws.s3(), bucket, "payments/", aws.dynamoDb(), "unused-ledger"),
                bucket,
                table);
    }

    private static List<ProcessedEvent> events(int count) {
        List<ProcessedEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(SinksIT.event(
                    SHARD,
                    1000 + i,
                    "pay-" + i,
                    "cust-" + (i % 5),
                    "2026-11-30T1" + (i % 2) + ":" + String.format("%02d", i % 60) + ":00Z"));
        }
        return events;
    }

    private static List<String> eventIdsInLake(LocalAws aws, Stage stage) throws Exception {
        return SinksIT.eventIds(aws, stage.bucket(), SinksIT.keys(aws, stage.bucket()));
    }

    private static List<String> ids(List<ProcessedEvent> events) {
        return events.stream().map(ProcessedEvent::eventId).toList();
    }

    @Test
    void concurrentInterleavedBatchesOfOneShardLandEachEventOnce(LocalAws aws, ResourceNames names) throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> all = events(60);
        // parallelization factor 4: the shard's records split by partition key into 4 lanes, each
        // lane's batches delivered concurrently with the others, and every lane delivered twice more
        // (retries, replays), interleaving positions across lanes
        ExecutorService lanes = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int lane = 0; lane < 4; lane++) {
                int l = lane;
                runs.add(lanes.submit(() -> {
                    List<ProcessedEvent> mine = all.stream()
                            .filter(e -> Math.floorMod(e.key().hashCode(), 4) == l)
                            .toList();
                    Random random = new Random(l);
                    for (int round = 0; round < 3; round++) {
                        for (int from = 0; from < mine.size(); ) {
                            int to = Math.min(mine.size(), from + 1 + random.nextInt(5));
                            stage.deliver(mine.subList(from, to));
                            from = to;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            lanes.shutdownNow();
        }
        // and whole-batch redeliveries spanning every lane at once
        stage.deliver(all.subList(10, 40));

        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(all));
    }

    @Test
    void replayAfterACrashBetweenTheDedupWriteAndTheLakePutRePointsAndLandsOnce(LocalAws aws, ResourceNames names)
            throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> batch = events(10);
        Pending crashed = stage.gateOnly(batch); // the function dies here, before the lake put

        SinkReport replay = stage.deliver(batch);

        assertThat(replay).isEqualTo(new SinkReport(10, 0));
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(batch));
        String first = batch.get(0).eventId();
        Map<String, AttributeValue> item = aws.dynamoDb()
                .getItem(b -> b.tableName(stage.table()).key(Map.of("pk", AttributeValue.fromS(first))))
                .item();
        assertThat(item.get(DynamoDbStateSink.LAKE).s())
                .isNotEqualTo(crashed.plan().keyOf(batch.get(0)));
        assertThat(S3LakeSink.isTombstone(aws.s3()
                        .headObject(
                                b -> b.bucket(stage.bucket()).key(crashed.plan().keyOf(batch.get(0))))
                        .metadata()))
                .isTrue();
        // delivered once more: all of it is in the lake already
        assertThat(stage.deliver(batch)).isEqualTo(new SinkReport(0, 10));
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(batch));
    }

    @Test
    void staleInvocationWhoseKeyWasTombstonedFailsRetryablyAndLandsNothing(LocalAws aws, ResourceNames names)
            throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> batch = events(8);
        Pending stale = stage.gateOnly(batch); // timed out, still running
        stage.deliver(batch); // its redelivery claims the stale keys and lands the events

        assertThatThrownBy(stale::writeLake)
                .isInstanceOfSatisfying(
                        SinkException.class, e -> assertThat(e.retryable()).isTrue())
                .hasMessageContaining("claimed by another invocation");
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(batch));
    }

    @Test
    void lateObjectOfATimedOutInvocationIsAdoptedNotWrittenAgain(LocalAws aws, ResourceNames names) throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> batch = events(6);
        Pending slow = stage.gateOnly(batch);
        slow.writeLake(); // lands after the mapping gave up on it

        assertThat(stage.deliver(batch)).isEqualTo(new SinkReport(0, 6));
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(batch));
    }

    @Test
    void sdkRetriedPutWhoseResponseWasLostIsAdopted(LocalAws aws, ResourceNames names) throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> batch = events(5);
        Pending pending = stage.gateOnly(batch);
        pending.writeLake();

        // the same PUT again (the SDK's retry after a lost response): 412, our token, done
        assertThat(pending.writeLake()).isEqualTo(new SinkReport(5, 0));
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrderElementsOf(ids(batch));
    }

    @Test
    void producerResendIsKeptOutOfTheLake(LocalAws aws, ResourceNames names) throws Exception {
        Stage stage = stage(aws, names);
        List<ProcessedEvent> batch = events(3);
        stage.deliver(batch);
        ProcessedEvent resent = SinksIT.event(SHARD, 5000, "pay-1", "cust-1", "2026-11-30T11:01:00Z");

        assertThat(stage.deliver(List.of(resent))).isEqualTo(new SinkReport(0, 0));
        assertThat(eventIdsInLake(aws, stage)).containsExactlyInAnyOrder("pay-0", "pay-1", "pay-2");
    }
}
