package dev.sluice.local.esm;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler for runner tests, loaded by class name like any other: it records every delivery per
 * partition key, how many invocations overlapped, and fails chosen records once.
 */
public class RecordingHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    static final Map<String, List<String>> DELIVERIES = new ConcurrentHashMap<>();
    /** The number of records of each invocation, in order. */
    static final List<Integer> BATCH_SIZES = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Whether the first invocations wait for a second one beside them (the concurrency tests). */
    static volatile boolean holdForConcurrency = true;

    static final Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();
    /** Records whose presence makes the whole invocation throw (a function error), every time. */
    static final Set<String> POISON = ConcurrentHashMap.newKeySet();

    static final AtomicInteger IN_FLIGHT = new AtomicInteger();
    static final AtomicInteger MOST_IN_FLIGHT = new AtomicInteger();
    static volatile CountDownLatch twoInFlight = new CountDownLatch(1);

    static void reset() {
        DELIVERIES.clear();
        BATCH_SIZES.clear();
        holdForConcurrency = true;
        FAIL_ONCE.clear();
        POISON.clear();
        IN_FLIGHT.set(0);
        MOST_IN_FLIGHT.set(0);
        twoInFlight = new CountDownLatch(1);
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        int now = IN_FLIGHT.incrementAndGet();
        MOST_IN_FLIGHT.accumulateAndGet(now, Math::max);
        if (now >= 2) {
            twoInFlight.countDown();
        }
        try {
            // hold the first invocations until a second one runs beside them (or give up after a while,
            // which the test then sees as no concurrency)
            BATCH_SIZES.add(event.getRecords().size());
            if (POISON.isEmpty() && holdForConcurrency) {
                twoInFlight.await(2, TimeUnit.SECONDS);
            }
            for (KinesisEvent.KinesisEventRecord record : event.getRecords()) {
                if (POISON.contains(record.getKinesis().getSequenceNumber())) {
                    throw new IllegalStateException(
                            "poison record " + record.getKinesis().getSequenceNumber());
                }
            }
            List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
            for (KinesisEvent.KinesisEventRecord record : event.getRecords()) {
                String sequence = record.getKinesis().getSequenceNumber();
                DELIVERIES
                        .computeIfAbsent(record.getKinesis().getPartitionKey(), k -> new ArrayList<>())
                        .add(sequence);
                if (failures.isEmpty() && FAIL_ONCE.remove(sequence)) {
                    failures.add(new StreamsEventResponse.BatchItemFailure(sequence));
                }
            }
            return new StreamsEventResponse(failures);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            IN_FLIGHT.decrementAndGet();
        }
    }
}
