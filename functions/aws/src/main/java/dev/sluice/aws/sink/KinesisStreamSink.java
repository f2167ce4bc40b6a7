package dev.sluice.aws.sink;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.kpl.AggregatedPuts;
import dev.sluice.aws.kpl.KplAggregator;
import dev.sluice.aws.kpl.ShardMapCache;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;

/**
 * A re-key hop: writes events to another stream, each partitioned by that stream's
 * {@code partitionKey} field, so the next stage finds one key's events — and its reference data —
 * in one shard. At least once by nature: events keep their {@code eventId}, which the next
 * stage's sinks use to absorb duplicates (a {@code deduplicate} table there treats a record put
 * twice here as a re-send), and the position they first entered Sluice at ({@code origin}).
 * PutRecords, 500 at a time; only the entries a partial failure names are sent again. With {@code
 * aggregate: true} the events of a batch are packed into KPL aggregates per shard first, as the KPL
 * does: the sink lists the stream's shards ({@code ListShards}, once, and again when Kinesis puts an
 * aggregate on a shard other than the one it was packed for — the stream was resharded), so a
 * shard's 1,000 records a second carry up to 50 KB aggregates instead of single events.
 */
public final class KinesisStreamSink implements EventSink {

    /** What the sink calls: {@code PutRecords} on {@code stream}, whose SSE-KMS needs {@code kms:GenerateDataKey}. */
    public static List<Access> access(String stream) {
        return access(stream, false);
    }

    /**
     * What the sink calls: {@code PutRecords} on {@code stream} (and, when it aggregates, {@code
     * ListShards} to pack per shard), whose SSE-KMS needs {@code kms:GenerateDataKey}.
     */
    public static List<Access> access(String stream, boolean aggregate) {
        return aggregate
                ? List.of(
                        Access.stream(stream, "kinesis:PutRecords"),
                        Access.stream(stream, "kinesis:ListShards"),
                        Access.key("kinesis", "kms:GenerateDataKey"))
                : List.of(Access.stream(stream, "kinesis:PutRecords"), Access.key("kinesis", "kms:GenerateDataKey"));
    }

    /** The envelope field that carries an event's first position across hops. */
    public static final String ORIGIN = "origin";

    private static final int MAX_ENTRIES = 500;
    private static final int ATTEMPTS = 5;

    private final KinesisClient kinesis;
    private final String stream;
    private final JsonPointer partitionKey;
    private final boolean aggregate;
    /** The aggregating put, with the stream's shards as last listed (listed at its first put). */
    private final AggregatedPuts puts;

    public KinesisStreamSink(KinesisClient kinesis, String stream, String partitionKeyField) {
        this(kinesis, stream, partitionKeyField, false);
    }

    /**
     * @param aggregate pack the events into KPL aggregates ({@link KplAggregator#DEFAULT_MAX_BYTES}
     *     each), one shard's records per aggregate, put with its first record's hash key so that it
     *     lands on that shard; the next stage de-aggregates them
     */
    public KinesisStreamSink(KinesisClient kinesis, String stream, String partitionKeyField, boolean aggregate) {
        this.kinesis = kinesis;
        this.stream = stream;
        this.partitionKey = FieldPaths.pointer(partitionKeyField);
        this.aggregate = aggregate;
        this.puts = new AggregatedPuts(new ShardMapCache(kinesis, stream), KplAggregator.DEFAULT_MAX_BYTES);
    }

    @Override
    public String name() {
        return "stream:" + stream;
    }

    @Override
    public SinkReport write(List<ProcessedEvent> events) throws SinkException {
        for (int from = 0; from < events.size(); from += MAX_ENTRIES) {
            List<PutRecordsRequestEntry> pending = new ArrayList<>();
            for (ProcessedEvent event : events.subList(from, Math.min(from + MAX_ENTRIES, events.size()))) {
                JsonNode key = event.event().at(partitionKey);
                if (!key.isValueNode() || key.asText().isEmpty()) {
                    throw new SinkException(
                            "event " + event.eventId() + " has no " + partitionKey + " to partition stream " + stream
                                    + " by",
                            false,
                            null);
                }
                pending.add(PutRecordsRequestEntry.builder()
                        .partitionKey(key.asText())
                        .data(SdkBytes.fromString(withOrigin(event).toString(), StandardCharsets.UTF_8))
                        .build());
            }
            if (aggregate) {
                putAggregated(pending);
            } else {
                put(pending);
            }
        }
        return new SinkReport(events.size(), 0);
    }

    /**
     * Puts the entries packed per shard ({@link AggregatedPuts}): an aggregate Kinesis put on
     * another shard than the one it was packed for (the stream was resharded since the shards were
     * listed) is put again, packed with the shards listed afresh, when consumers drop it (one of its
     * records lies outside the shard it landed on) — never otherwise, so nothing is sent twice.
     */
    private void putAggregated(List<PutRecordsRequestEntry> entries) throws SinkException {
        List<UserRecord> users = new ArrayList<>(entries.size());
        for (PutRecordsRequestEntry entry : entries) {
            users.add(new UserRecord(entry.partitionKey(), entry.data().asByteArray()));
        }
        try {
            puts.put(users, wave -> {
                List<PutRecordsRequestEntry> batch = new ArrayList<>(wave.size());
                for (KplAggregator.Aggregate a : wave) {
                    batch.add(PutRecordsRequestEntry.builder()
                            .partitionKey(a.partitionKey())
                            .explicitHashKey(a.explicitHashKey())
                            .data(SdkBytes.fromByteArray(a.data()))
                            .build());
                }
                return put(batch).stream()
                        .map(shard -> new AggregatedPuts.Landed(shard, null))
                        .toList();
            });
        } catch (SdkException e) {
            throw SdkErrors.classify("list the shards of " + stream, e);
        } catch (AggregatedPuts.StillMisplacedException e) {
            throw new SinkException(e.getMessage(), true, e);
        }
    }

    /**
     * The event with its {@code origin} — stream, shard, sequence number and (for a user record of a
     * KPL aggregate) sub-sequence number where it first entered Sluice — unless an earlier hop set it
     * already.
     */
    static ObjectNode withOrigin(ProcessedEvent event) {
        if (event.event().has(ORIGIN)) {
            return event.event();
        }
        ObjectNode copy = event.event().deepCopy();
        ObjectNode origin = copy.putObject(ORIGIN)
                .put("stream", event.source().stream())
                .put("shardId", event.position().shardId())
                .put("sequenceNumber", event.position().sequenceNumber());
        if (event.position().subSequence() != 0) {
            // a user record of a KPL aggregate: the sequence number alone names its aggregate
            origin.put("subSequenceNumber", event.position().subSequence());
        }
        return copy;
    }

    /** Puts the entries, retrying those a partial failure names; returns the shard each landed on. */
    private List<String> put(List<PutRecordsRequestEntry> entries) throws SinkException {
        String[] landedOn = new String[entries.size()];
        List<Integer> pending = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            pending.add(i);
        }
        for (int attempt = 1; ; attempt++) {
            PutRecordsResponse response;
            try {
                List<PutRecordsRequestEntry> batch =
                        pending.stream().map(entries::get).toList();
                response = kinesis.putRecords(b -> b.streamName(stream).records(batch));
            } catch (SdkException e) {
                throw SdkErrors.classify("put records into " + stream, e);
            }
            List<Integer> failed = new ArrayList<>();
            for (int i = 0; i < response.records().size(); i++) {
                if (response.records().get(i).errorCode() != null) {
                    failed.add(pending.get(i));
                } else {
                    landedOn[pending.get(i)] = response.records().get(i).shardId();
                }
            }
            if (failed.isEmpty()) {
                return java.util.Arrays.asList(landedOn);
            }
            if (attempt == ATTEMPTS) {
                throw new SinkException(
                        failed.size() + " records not accepted by " + stream + " after " + ATTEMPTS + " attempts",
                        true,
                        null);
            }
            pending = failed;
            java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L * attempt);
        }
    }
}
