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
 */
public final class Producer {

    private static final int MAX_ENTRIES = 500;
    private static final int MAX_ATTEMPTS = 10;

    private final KinesisClient kinesis;
    private final String stream;
    private final AtomicLong ambiguous = new AtomicLong();

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
            for (int attempt = 1; !pending.isEmpty(); attempt++) {
                if (attempt > MAX_ATTEMPTS) {
                    throw new IllegalStateException(pending.size() + " records could not be put into " + stream);
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
                    LockSupport.parkNanos(Duration.ofMillis(50L * attempt).toNanos());
                    continue;
                }
                List<Integer> failed = new ArrayList<>();
                for (int i = 0; i < response.records().size(); i++) {
                    PutRecordsResultEntry result = response.records().get(i);
                    int index = pending.get(i);
                    if (result.errorCode() == null) {
                        placed[index] = new LedgerEntry(chunk.get(index), result.shardId(), result.sequenceNumber());
                    } else {
                        failed.add(index);
                    }
                }
                pending = failed;
                if (!pending.isEmpty()) {
                    LockSupport.parkNanos(Duration.ofMillis(50L * attempt).toNanos());
                }
            }
            ledger.addAll(List.of(placed));
            progress.accept(ledger.size());
        }
        return ledger;
    }
}
