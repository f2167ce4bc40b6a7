package dev.sluice.verify.reconcile;

import dev.sluice.generators.GeneratedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * Puts events into a stream with PutRecords, 500 at a time, re-sending only the entries a partial
 * failure names — or all of them when a put gets no answer — and records where each one landed.
 * Throttled entries ({@code ProvisionedThroughputExceededException}: a shard's 1,000 records/s or
 * 1 MiB/s) are sent again after an exponential backoff with full jitter (AWS's guidance for
 * throttled calls), for as long as each attempt gets some of them through.
 */
public final class Producer {

    private static final int MAX_ENTRIES = 500;
    /** Attempts in a row that write nothing before the producer gives up. */
    private static final int MAX_ATTEMPTS = 10;

    private static final long BASE_BACKOFF_MILLIS = 50;
    private static final long MAX_BACKOFF_MILLIS = 2_000;

    private final KinesisClient kinesis;
    private final String stream;
    private final AtomicLong ambiguous = new AtomicLong();
    private final AtomicLong throttled = new AtomicLong();

    public Producer(KinesisClient kinesis, String stream) {
        this.kinesis = kinesis;
        this.stream = stream;
    }

    /**
     * Records sent again because a put got no answer (a time-out, a lost response): each may be in
     * the stream twice.
     */
    public long ambiguous() {
        return ambiguous.get();
    }

    /** Entries refused with {@code ProvisionedThroughputExceededException} and sent again. */
    public long throttled() {
        return throttled.get();
    }

    /** Full-jitter exponential backoff: a random pause up to 50 ms × 2^(attempt−1), at most 2 s. */
    static long backoffMillis(int attempt) {
        long ceiling = Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempt - 1, 10));
        return java.util.concurrent.ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    }

    /**
     * Sends every event and returns the ledger, in sending order: where each was acknowledged. A
     * put without an answer is ambiguous; its records are sent again (see {@link #ambiguous()}).
     *
     * @param progress told the running count of acknowledged puts
     */
    public List<LedgerEntry> send(List<GeneratedEvent> events, LongConsumer progress) {
        List<LedgerEntry> ledger = new ArrayList<>(events.size());
        for (int from = 0; from < events.size(); from += MAX_ENTRIES) {
            List<GeneratedEvent> chunk = events.subList(from, Math.min(from + MAX_ENTRIES, events.size()));
            LedgerEntry[] placed = new LedgerEntry[chunk.size()];
            List<Integer> pending = new ArrayList<>();
            for (int i = 0; i < chunk.size(); i++) {
                pending.add(i);
            }
            int attempt = 0; // attempts in a row that wrote nothing
            while (!pending.isEmpty()) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw new IllegalStateException(pending.size() + " records could not be put into " + stream
                            + " after " + MAX_ATTEMPTS + " attempts in a row that wrote nothing");
                }
                List<PutRecordsRequestEntry> entries = new ArrayList<>(pending.size());
                for (int index : pending) {
                    GeneratedEvent event = chunk.get(index);
                    entries.add(PutRecordsRequestEntry.builder()
                            .partitionKey(event.partitionKey())
                            .data(SdkBytes.fromByteArray(event.data()))
                            .build());
                }
                PutRecordsResponse response;
                try {
                    response = kinesis.putRecords(b -> b.streamName(stream).records(entries));
                } catch (SdkException e) {
                    // no answer: the records may or may not be in the stream, so all of them are sent
                    // again; a copy that did land is a duplicate the pipeline must absorb
                    ambiguous.addAndGet(entries.size());
                    attempt++;
                    LockSupport.parkNanos(
                            Duration.ofMillis(backoffMillis(attempt)).toNanos());
                    continue;
                }
                List<Integer> failed = new ArrayList<>();
                for (int i = 0; i < response.records().size(); i++) {
                    PutRecordsResultEntry result = response.records().get(i);
                    int index = pending.get(i);
                    if (result.errorCode() == null) {
                        placed[index] = new LedgerEntry(chunk.get(index), result.shardId(), result.sequenceNumber());
                    } else {
                        if ("ProvisionedThroughputExceededException".equals(result.errorCode())) {
                            throttled.incrementAndGet();
                        }
                        failed.add(index);
                    }
                }
                attempt = failed.size() < pending.size() ? 1 : attempt + 1;
                pending = failed;
                if (!pending.isEmpty()) {
                    LockSupport.parkNanos(
                            Duration.ofMillis(backoffMillis(attempt)).toNanos());
                }
            }
            ledger.addAll(List.of(placed));
            progress.accept(ledger.size());
        }
        return ledger;
    }
}
