package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Per-key order across a re-key hop: in the hop's stream, the events of one partition key that came
 * from one shard of the first stage's input (their {@code origin}) must appear — the first time each
 * appears — in their origin order. Events of one key from different origin shards have no order to
 * keep; later copies of an event (a batch put again) are at least once by nature and skipped.
 */
public final class HopOrder {

    private final KinesisClient kinesis;
    private final ObjectMapper mapper = new ObjectMapper();

    public HopOrder(KinesisClient kinesis) {
        this.kinesis = kinesis;
    }

    /**
     * @param records records in the hop
     * @param copies records that were a later copy of an event already seen
     * @param violations events found after a later event of the same key and origin shard
     * @param examples the first few violations, for people
     */
    public record Result(long records, long copies, long violations, List<String> examples) {}

    public Result check(String stream) {
        Set<String> seen = new HashSet<>();
        Map<String, BigInteger[]> lastByKeyAndOrigin = new HashMap<>();
        List<String> examples = new ArrayList<>();
        long records = 0;
        long copies = 0;
        long violations = 0;
        for (dev.sluice.aws.kpl.UserRecord record : userRecords(stream)) {
            records++;
            JsonNode event;
            try {
                event = mapper.readTree(record.data());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (!seen.add(event.path("eventId").asText())) {
                copies++;
                continue;
            }
            JsonNode origin = event.path("origin");
            String key =
                    record.partitionKey() + " from " + origin.path("shardId").asText();
            BigInteger[] position = {
                new BigInteger(origin.path("sequenceNumber").asText("0")),
                BigInteger.valueOf(origin.path("subSequenceNumber").asLong(0))
            };
            BigInteger[] last = lastByKeyAndOrigin.put(key, position);
            if (last != null && compare(position, last) < 0) {
                violations++;
                if (examples.size() < 10) {
                    examples.add(key + ": " + event.path("eventId").asText() + " (origin " + position[0] + ") after "
                            + last[0]);
                }
            }
        }
        return new Result(records, copies, violations, List.copyOf(examples));
    }

    private static int compare(BigInteger[] a, BigInteger[] b) {
        int sequence = a[0].compareTo(b[0]);
        return sequence != 0 ? sequence : a[1].compareTo(b[1]);
    }

    /**
     * The hop's user records in stream order per shard: a record as it is, a KPL aggregate (an
     * aggregating hop) as its user records in sub-sequence order.
     */
    private List<dev.sluice.aws.kpl.UserRecord> userRecords(String stream) {
        List<dev.sluice.aws.kpl.UserRecord> users = new ArrayList<>();
        for (Record record : records(stream)) {
            byte[] data = record.data().asByteArray();
            if (dev.sluice.core.event.KplFormat.hasMagic(data)) {
                try {
                    users.addAll(dev.sluice.aws.kpl.KplAggregates.decode(data));
                    continue;
                } catch (dev.sluice.aws.kpl.MalformedAggregateException e) {
                    throw new IllegalStateException("a malformed aggregate in " + stream + ": " + e.getMessage(), e);
                }
            }
            users.add(new dev.sluice.aws.kpl.UserRecord(record.partitionKey(), data));
        }
        return users;
    }

    private List<Record> records(String stream) {
        List<Record> all = new ArrayList<>();
        for (Shard shard : kinesis.listShards(b -> b.streamName(stream)).shards()) {
            String iterator = kinesis.getShardIterator(b -> b.streamName(stream)
                            .shardId(shard.shardId())
                            .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                    .shardIterator();
            while (iterator != null) {
                String current = iterator;
                GetRecordsResponse response;
                try {
                    response = kinesis.getRecords(b -> b.shardIterator(current).limit(10_000));
                } catch (ProvisionedThroughputExceededException e) {
                    java.util.concurrent.locks.LockSupport.parkNanos(
                            java.time.Duration.ofMillis(250).toNanos());
                    continue;
                }
                all.addAll(response.records());
                if (response.records().isEmpty()
                        && (response.millisBehindLatest() == null || response.millisBehindLatest() == 0)) {
                    break;
                }
                iterator = response.nextShardIterator();
            }
        }
        return all;
    }
}
