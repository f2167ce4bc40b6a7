package dev.sluice.local.esm;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** A handler whose first invocation (of the first environment) stalls until released: the time-out tests. */
public class StallingHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    static final AtomicInteger ENVIRONMENTS = new AtomicInteger();
    static final AtomicInteger FINISHED = new AtomicInteger();
    static volatile CountDownLatch release = new CountDownLatch(1);

    private final int environment;

    public StallingHandler() {
        environment = ENVIRONMENTS.incrementAndGet();
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        if (environment == 1) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        FINISHED.incrementAndGet();
        return new StreamsEventResponse();
    }
}
