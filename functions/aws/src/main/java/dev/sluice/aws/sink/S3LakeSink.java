package dev.sluice.aws.sink;

import dev.sluice.aws.access.Access;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.ClaimingSink;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Newline-delimited, gzip-compressed JSON objects in the lake, partitioned by event date and hour,
 * with a per-shard commit ledger in DynamoDB ({@link LakeLedger}) so that every record lands in
 * exactly one object, however the batches are delivered again (retried, bisected, or resumed from
 * a record in the middle).
 *
 * <p>Per hour partition of one shard in a batch: (1) record the intent — the object's key, first
 * and last position — on the ledger item, on condition that no other object is being written and
 * nothing at or after the first position is committed; (2) put the object with {@code
 * If-None-Match: *} under a deterministic key (stream, shard, first position); (3) commit: the
 * last position becomes the partition's {@code committed} and the intent is removed. That is two
 * ledger writes and one PUT per object, no read. When the intent cannot be recorded the ledger item
 * is read: records at or before {@code committed} are already in the lake (absorbed duplicates);
 * an intent left by a crashed or timed-out attempt is resolved — its object exists: it is adopted
 * and committed; it does not: its key is claimed with an empty tombstone object ({@code
 * If-None-Match: *}, so the attempt's PUT, perhaps still in flight, can never land), the intent is
 * dropped and the partition's generation goes up, so that later keys (which carry it) never meet a
 * tombstone. An
 * object that exists when it is put (a lost response, or a ledger that was lost) is adopted by its
 * {@value #LAST_POSITION} metadata, never rewritten with other boundaries.
 *
 * <p>The ledger is exact only with one writer per shard at a time (parallelization factor 1, which
 * the definition checks enforce for a stage without a deduplicate table): within an hour partition
 * of a shard, positions then only increase from one batch to the next.
 *
 * <p><b>Claim mode</b> (a stage with a deduplicate table, any parallelization factor; {@link
 * ClaimingSink}): no ledger. Each batch write draws a fresh random token {@code T}; its objects are
 * {@code <prefix>dt=…/hr=…/<stream>-<shard>-<first position>-<T>.jsonl.gz}, one per hour partition,
 * holding exactly the events the deduplicate sink assigned to them (their items name the key), put
 * with {@code If-None-Match: *} and {@value #TOKEN} metadata. A 412 on that put is resolved by
 * {@code HeadObject}: our token — the SDK repeated a PUT whose answer was lost, done; a tombstone —
 * another invocation proved this (stale, timed-out) one's object absent and re-pointed its events,
 * so this write fails retryably and lands nothing. {@link #holdsRecords} tells the deduplicate sink
 * whether an object an item names is final, claiming a missing one with a tombstone. An event is
 * thus in the lake only in the object its item names, and an item is re-pointed only away from a
 * tombstone, which no write can replace: exactly once under concurrent batches of one shard.
 */
public final class S3LakeSink implements ClaimingSink {

    /**
     * What the sink calls under its lake {@code prefix}: {@code PutObject} with {@code If-None-Match}
     * and {@code HeadObject} (authorized as {@code s3:GetObject}); a HeadObject of a missing key
     * answers 404 only to a caller allowed {@code s3:ListBucket} (else 403), so the listing of the
     * prefix; {@code kms:GenerateDataKey} for the SSE-KMS put (HeadObject decrypts nothing); and the
     * ledger's calls.
     */
    public static List<Access> access(String prefix) {
        return access(prefix, false);
    }

    /** As {@link #access(String)}; in claim mode without the ledger, which that mode never calls. */
    public static List<Access> access(String prefix, boolean claimMode) {
        List<Access> out = new java.util.ArrayList<>(List.of(
                Access.objects(prefix + "*", "s3:PutObject", "s3:GetObject"),
                Access.listing(prefix),
                Access.key("s3", "kms:GenerateDataKey")));
        if (!claimMode) {
            out.addAll(LakeLedger.access());
        }
        return out;
    }

    /**
     * Whether a stage's lake is claimed through its deduplicate table (claim mode) rather than kept by
     * the per-shard commit ledger: only where the ledger cannot serve, a stage reading a shard with
     * more than one batch at a time ({@code parallelizationFactor} above 1, which the definition
     * checks allow only with a deduplicate table). Stages at 1 keep the ledger, the protocol the
     * fault suite's lake scenarios exercise; claim mode is proven by {@code LakeClaimsIT} so far.
     */
    public static boolean claimMode(dev.sluice.core.definition.StageDefinition stage) {
        return stage.deduplicate() != null
                && stage.batching().parallelizationFactor() > 1
                && stage.sinks().stream()
                        .anyMatch(s -> s.kind() == dev.sluice.core.definition.SinkDefinition.Kind.LAKE);
    }

    /** This sink with the ledger only: a plain {@link EventSink}, so the batch never claims through it. */
    public EventSink ledgerOnly() {
        S3LakeSink lake = this;
        return new EventSink() {
            @Override
            public String name() {
                return lake.name();
            }

            @Override
            public SinkReport write(List<ProcessedEvent> events) throws SinkException {
                return lake.write(events);
            }
        };
    }

    /** Object metadata: the last position in the object (sortable form). */
    public static final String LAST_POSITION = "sluice-last-position";
    /** Object metadata: how many records the object holds. */
    public static final String RECORD_COUNT = "sluice-records";
    /**
     * Object metadata, {@code true} on a tombstone: the key of an abandoned intent, claimed by the
     * writer that abandoned it so that the abandoned attempt's object can never land there.
     */
    public static final String TOMBSTONE = "sluice-tombstone";
    /** Object metadata in claim mode: the random token of the batch write that put the object. */
    public static final String TOKEN = "sluice-token";

    private static final java.security.SecureRandom TOKENS = new java.security.SecureRandom();

    /** Rounds of ledger resolution per partition before giving up (retryably) on a busy ledger item. */
    private static final int MAX_ROUNDS = 8;

    private final S3Client s3;
    private final String bucket;
    private final String prefix;
    private final LakeLedger ledger;
    /** The generation of the partitions this writer met with abandoned intents (a few hundred at most). */
    private final Map<String, Long> generations = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > 512;
        }
    };

    /**
     * Kinesis's longest retention (365 days) and a day: how long ledger items are kept when the
     * input stream's retention is not given.
     */
    public static final Duration KEEP_LEDGER_AT_MOST = Duration.ofHours(8760 + 24);

    /**
     * A lake sink whose ledger items are kept {@link #KEEP_LEDGER_AT_MOST}.
     *
     * @param prefix the lake's prefix in the bucket, ending with {@code /}
     * @param ledgerTable the pipeline's commit ledger table (hash key {@code pk}, a string)
     */
    public S3LakeSink(S3Client s3, String bucket, String prefix, DynamoDbClient dynamoDb, String ledgerTable) {
        this(s3, bucket, prefix, dynamoDb, ledgerTable, KEEP_LEDGER_AT_MOST, Clock.systemUTC());
    }

    /**
     * @param prefix the lake's prefix in the bucket, ending with {@code /}
     * @param ledgerTable the pipeline's commit ledger table (hash key {@code pk}, a string)
     * @param keepLedger how long after its last write a ledger item is kept: longer than the input
     *     stream keeps records, so that no record it guards can be delivered after it is gone
     */
    public S3LakeSink(
            S3Client s3,
            String bucket,
            String prefix,
            DynamoDbClient dynamoDb,
            String ledgerTable,
            Duration keepLedger,
            Clock clock) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
        this.ledger = new LakeLedger(dynamoDb, ledgerTable, keepLedger, clock);
    }

    @Override
    public String name() {
        return "lake:" + bucket + "/" + prefix;
    }

    @Override
    public SinkReport write(List<ProcessedEvent> events) throws SinkException {
        int applied = 0;
        int absorbed = 0;
        for (Map.Entry<String, List<ProcessedEvent>> partition :
                partitions(events).entrySet()) {
            int[] counts = write(partition.getKey(), partition.getValue());
            applied += counts[0];
            absorbed += counts[1];
        }
        return new SinkReport(applied, absorbed);
    }

    /** Writes one hour partition of one shard; returns {applied, absorbed}. */
    private int[] write(String pk, List<ProcessedEvent> partition) throws SinkException {
        int applied = 0;
        int absorbed = 0;
        long generation = generation(pk);
        List<ProcessedEvent> rest = partition;
        for (int round = 0; !rest.isEmpty(); round++) {
            if (round == MAX_ROUNDS) {
                throw new SinkException(
                        "lake ledger " + ledger.table() + " item " + pk + " kept changing under this writer ("
                                + MAX_ROUNDS + " rounds); is another writer on this shard?",
                        true,
                        null);
            }
            String key = key(rest.get(0), generation);
            String first = rest.get(0).position().sortable();
            String last = rest.get(rest.size() - 1).position().sortable();
            if (!ledger.open(pk, new LakeLedger.Intent(key, first, last), generation)) {
                LakeLedger.State state = ledger.read(pk);
                if (state.open() != null) {
                    state = resolve(pk, state);
                }
                generation = remember(pk, state.generation());
                int covered = covered(rest, state);
                absorbed += covered;
                rest = rest.subList(covered, rest.size());
                continue;
            }
            if (put(key, rest)) {
                commit(pk, key, last);
                applied += rest.size();
                rest = List.of();
                continue;
            }
            // the object exists (a lost response, or written before the ledger knew): adopt it
            Head head = head(key)
                    .orElseThrow(() -> new SinkException(
                            "s3://" + bucket + "/" + key + " vanished between its put and its head", true, null));
            if (head.tombstone()) {
                // another writer took this attempt for dead, claimed its key and abandoned its intent:
                // nothing of it was written; the next round opens an intent of the next generation
                continue;
            }
            String objectLast = head.last();
            int covered = coveredUpTo(rest, objectLast);
            if (covered == 0) {
                throw new SinkException(
                        "s3://" + bucket + "/" + key + " ends before its own first record", false, null);
            }
            commit(pk, key, objectLast);
            if (objectLast.equals(last)) {
                // exactly the object this attempt meant to write, under the intent it recorded itself:
                // the SDK repeated a PUT whose first try stored the object but lost the answer
                applied += covered;
            } else {
                absorbed += covered;
            }
            rest = rest.subList(covered, rest.size());
        }
        return new int[] {applied, absorbed};
    }

    /** A claim-mode batch write: its token and, per ledger partition, the key of its object. */
    private record ClaimPlan(String token, Map<String, String> keys) implements Plan {
        @Override
        public String keyOf(ProcessedEvent event) {
            return keys.get(partitionOf(event));
        }
    }

    @Override
    public Plan plan(List<ProcessedEvent> events) {
        String token = String.format("%016x", TOKENS.nextLong());
        Map<String, String> keys = new LinkedHashMap<>();
        for (Map.Entry<String, List<ProcessedEvent>> partition :
                partitions(events).entrySet()) {
            ProcessedEvent first = partition.getValue().get(0);
            keys.put(partitionOf(first), objectKey(first, "-" + token));
        }
        return new ClaimPlan(token, Map.copyOf(keys));
    }

    @Override
    public boolean holdsRecords(String key) throws SinkException {
        Optional<Head> head = head(key);
        if (head.isEmpty()) {
            if (claim(key)) {
                return false; // a tombstone now: the write it stood for can never land
            }
            head = head(key); // its write landed just now
        }
        return head.map(h -> !h.tombstone())
                .orElseThrow(
                        () -> new SinkException("s3://" + bucket + "/" + key + " vanished after a 412", true, null));
    }

    @Override
    public SinkReport write(Plan plan, List<ProcessedEvent> assigned, int absorbed) throws SinkException {
        ClaimPlan claims = (ClaimPlan) plan;
        for (Map.Entry<String, List<ProcessedEvent>> partition :
                partitions(assigned).entrySet()) {
            List<ProcessedEvent> records = partition.getValue();
            String key = claims.keys().get(partitionOf(records.get(0)));
            if (key == null) {
                throw new SinkException("event at " + records.get(0).position() + " was not planned", false, null);
            }
            boolean put = putIfAbsent(
                    "put",
                    key,
                    Map.of(
                            LAST_POSITION,
                            records.get(records.size() - 1).position().sortable(),
                            RECORD_COUNT,
                            Integer.toString(records.size()),
                            TOKEN,
                            claims.token()),
                    gzipLines(records));
            if (put) {
                continue;
            }
            HeadObjectResponse head = rawHead(key);
            if (head == null) {
                throw new SinkException("s3://" + bucket + "/" + key + " vanished after a 412", true, null);
            }
            if (isTombstone(head.metadata())) {
                throw new SinkException(
                        "s3://" + bucket + "/" + key + " was claimed by another invocation (this one outlived its"
                                + " time-out); its events are re-pointed when the batch is delivered again",
                        true,
                        null);
            }
            if (!claims.token().equals(head.metadata().get(TOKEN))) {
                throw new SinkException(
                        "s3://" + bucket + "/" + key + " holds another write's object under this write's token",
                        false,
                        null);
            }
            // our own object: the SDK repeated a PUT whose first answer was lost
        }
        return new SinkReport(assigned.size(), absorbed);
    }

    /**
     * Resolves an intent left by an attempt that did not reach its commit. Its object exists: it is
     * committed as it is. It does not: its key is claimed first with a tombstone ({@code
     * If-None-Match: *}), so that the attempt's {@code PutObject} — perhaps still in flight from an
     * invocation that timed out — can never land under a key no ledger entry names; then the intent
     * is dropped and the partition moves to its next generation (new intents get new keys). The
     * claim answered 412: the late object landed in between, and the next round adopts it.
     */
    private LakeLedger.State resolve(String pk, LakeLedger.State state) throws SinkException {
        LakeLedger.Intent open = state.open();
        Optional<Head> head = head(open.key());
        if (head.isPresent() && !head.get().tombstone()) {
            String objectLast = head.get().last();
            if (ledger.commit(pk, open.key(), objectLast)) {
                return new LakeLedger.State(objectLast, null, state.generation());
            }
        } else if ((head.isPresent() || claim(open.key())) && ledger.abandon(pk, open.key())) {
            return new LakeLedger.State(state.committed(), null, state.generation() + 1);
        }
        // another writer resolved it first, or the late object has just landed
        return ledger.read(pk);
    }

    /** Commits an object this writer put or adopted; fine too if another writer committed it already. */
    private void commit(String pk, String key, String last) throws SinkException {
        if (ledger.commit(pk, key, last)) {
            return;
        }
        if (!ledger.read(pk).covers(last)) {
            throw new SinkException(
                    "lake ledger " + ledger.table() + " item " + pk + ": the intent for s3://" + bucket + "/" + key
                            + " was taken over before its commit; delivering again adopts the object",
                    true,
                    null);
        }
    }

    private static int covered(List<ProcessedEvent> records, LakeLedger.State state) {
        int covered = 0;
        while (covered < records.size()
                && state.covers(records.get(covered).position().sortable())) {
            covered++;
        }
        return covered;
    }

    private static int coveredUpTo(List<ProcessedEvent> records, String last) {
        return covered(records, new LakeLedger.State(last, null));
    }

    /** The object key for records starting at this event, in a partition none of whose intents was abandoned. */
    public String key(ProcessedEvent first) {
        return key(first, 0);
    }

    /**
     * The object key for records starting at this event, in a partition at this generation: {@code
     * <stream>-<shard>-<first position>.jsonl.gz} at generation 0, {@code
     * <stream>-<shard>-<first position>.g<generation>.jsonl.gz} after.
     */
    public String key(ProcessedEvent first, long generation) {
        return objectKey(first, generation == 0 ? "" : ".g" + generation);
    }

    /** {@code <prefix>dt=…/hr=…/<stream>-<shard>-<first position><suffix>.jsonl.gz}. */
    private String objectKey(ProcessedEvent first, String suffix) {
        return String.format(
                "%s%s/%s-%s-%s%s.jsonl.gz",
                prefix,
                hourPartition(first),
                first.source().stream(),
                first.position().shardId(),
                first.position().sortable(),
                suffix);
    }

    /** The partition's generation as this writer last saw it (0 if never). */
    private long generation(String pk) {
        synchronized (generations) {
            return generations.getOrDefault(pk, 0L);
        }
    }

    private long remember(String pk, long generation) {
        synchronized (generations) {
            if (generation == 0) {
                generations.remove(pk);
            } else {
                generations.put(pk, generation);
            }
        }
        return generation;
    }

    /**
     * The ledger item's key of the hour partition and shard an event belongs to: {@code
     * <prefix>dt=YYYY-MM-DD/hr=HH/<stream>/<shard>}.
     */
    public String ledgerKey(ProcessedEvent event) {
        return prefix + hourPartition(event) + "/" + event.source().stream() + "/"
                + event.position().shardId();
    }

    private static String hourPartition(ProcessedEvent event) {
        ZonedDateTime at = event.occurredAt().atZone(ZoneOffset.UTC);
        return String.format(
                "dt=%04d-%02d-%02d/hr=%02d", at.getYear(), at.getMonthValue(), at.getDayOfMonth(), at.getHour());
    }

    private static String partitionOf(ProcessedEvent event) {
        return hourPartition(event) + "/" + event.source().stream() + "/"
                + event.position().shardId();
    }

    /** The events by ledger item (hour partition, stream and shard), each in position order. */
    private Map<String, List<ProcessedEvent>> partitions(List<ProcessedEvent> events) {
        Map<String, List<ProcessedEvent>> partitions = new LinkedHashMap<>();
        for (ProcessedEvent event : events) {
            partitions.computeIfAbsent(ledgerKey(event), h -> new ArrayList<>()).add(event);
        }
        partitions
                .values()
                .forEach(p -> p.sort(Comparator.comparing(e -> e.position().sortable())));
        return partitions;
    }

    /** Writes the object unless it exists; {@code false} if it did. */
    private boolean put(String key, List<ProcessedEvent> records) throws SinkException {
        return putIfAbsent(
                "put",
                key,
                Map.of(
                        LAST_POSITION,
                        records.get(records.size() - 1).position().sortable(),
                        RECORD_COUNT,
                        Integer.toString(records.size())),
                gzipLines(records));
    }

    /**
     * Claims {@code key} for an abandoned intent: an object of no records ({@value #TOMBSTONE}), put
     * with {@code If-None-Match: *}.
     *
     * @return {@code false} if an object exists under the key (the abandoned attempt's late PUT landed)
     */
    private boolean claim(String key) throws SinkException {
        return putIfAbsent("claim", key, Map.of(TOMBSTONE, "true", RECORD_COUNT, "0"), gzipLines(List.of()));
    }

    /** One gzipped NDJSON object, put with {@code If-None-Match: *}; {@code false} on 412 (it exists). */
    private boolean putIfAbsent(String what, String key, Map<String, String> metadata, byte[] body)
            throws SinkException {
        PutObjectRequest request = PutObjectRequest.builder()
                .bucket(bucket)
                .key(key)
                .ifNoneMatch("*")
                .contentType("application/x-ndjson")
                .contentEncoding("gzip")
                .metadata(metadata)
                .build();
        try {
            s3.putObject(request, RequestBody.fromBytes(body));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return false;
            }
            throw SdkErrors.classify(what + " s3://" + bucket + "/" + key, e);
        } catch (SdkException e) {
            throw SdkErrors.classify(what + " s3://" + bucket + "/" + key, e);
        }
    }

    /** What an object's metadata says: the last position in it, or that it is a tombstone. */
    private record Head(String last, boolean tombstone) {}

    /** Object {@code key}'s head, or {@code null} if there is no such object. */
    private HeadObjectResponse rawHead(String key) throws SinkException {
        try {
            return s3.headObject(b -> b.bucket(bucket).key(key));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return null;
            }
            throw SdkErrors.classify("head s3://" + bucket + "/" + key, e);
        } catch (SdkException e) {
            throw SdkErrors.classify("head s3://" + bucket + "/" + key, e);
        }
    }

    /** Object {@code key}'s metadata, or empty if there is no such object. */
    private Optional<Head> head(String key) throws SinkException {
        HeadObjectResponse head = rawHead(key);
        if (head == null) {
            return Optional.empty();
        }
        if (isTombstone(head.metadata())) {
            return Optional.of(new Head(null, true));
        }
        String last = head.metadata().get(LAST_POSITION);
        if (last == null) {
            throw new SinkException(
                    "s3://" + bucket + "/" + key + " exists but was not written by Sluice", false, null);
        }
        return Optional.of(new Head(last, false));
    }

    /**
     * Whether an object with this (user) metadata is a tombstone: a claimed key of an abandoned intent,
     * holding no records (an empty gzip stream), which lake readers skip or read as empty.
     */
    public static boolean isTombstone(Map<String, String> metadata) {
        return "true".equals(metadata.get(TOMBSTONE));
    }

    private static byte[] gzipLines(List<ProcessedEvent> records) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(records.size() * 256);
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            for (ProcessedEvent record : records) {
                // the chain's bytes (the record's own, its edits spliced in) when it has them: no tree
                // is built and serialised again for the lake
                gzip.write(record.json());
                gzip.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
