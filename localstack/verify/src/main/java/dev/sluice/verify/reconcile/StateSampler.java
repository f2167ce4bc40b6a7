package dev.sluice.verify.reconcile;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Samples tables during a run (a background thread scanning each, consistent reads, every {@code
 * period}) and feeds each snapshot to its {@link StateRegressions} checker; closing takes one last
 * sample and stops.
 */
public final class StateSampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StateSampler.class);

    /** One table and its checker. */
    public record Watched(String table, StateRegressions checker) {}

    private final DynamoDbClient dynamoDb;
    private final List<Watched> watched;
    private final Duration period;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    public StateSampler(DynamoDbClient dynamoDb, List<Watched> watched, Duration period) {
        this.dynamoDb = dynamoDb;
        this.watched = List.copyOf(watched);
        this.period = period;
        this.thread = new Thread(this::loop, "state-sampler");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running.get()) {
            sample();
            LockSupport.parkNanos(period.toNanos());
        }
    }

    private void sample() {
        for (Watched w : watched) {
            try {
                List<Map<String, AttributeValue>> items = new ArrayList<>();
                dynamoDb.scanPaginator(b -> b.tableName(w.table()).consistentRead(true))
                        .items()
                        .forEach(items::add);
                w.checker().observe(w.table(), items);
            } catch (RuntimeException e) {
                LOG.debug("sample of {} failed", w.table(), e);
            }
        }
    }

    /** Every regression seen by every checker. */
    public List<StateRegressions.Regression> regressions() {
        List<StateRegressions.Regression> all = new ArrayList<>();
        watched.forEach(w -> all.addAll(w.checker().regressions()));
        return all;
    }

    @Override
    public void close() {
        running.set(false);
        try {
            thread.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sample();
    }
}
