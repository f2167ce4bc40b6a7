package dev.sluice.local.esm;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handler that notes which execution environment (instance) ran each invocation; while {@link
 * #together} is set, each invocation waits there until the other has arrived, so that two are
 * running at once.
 */
public class EnvironmentHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    static final AtomicInteger ENVIRONMENTS = new AtomicInteger();
    static final Set<Integer> USED = ConcurrentHashMap.newKeySet();
    static volatile CyclicBarrier together;

    private final int environment;

    public EnvironmentHandler() {
        environment = ENVIRONMENTS.incrementAndGet();
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        USED.add(environment);
        CyclicBarrier barrier = together;
        if (barrier != null) {
            try {
                barrier.await(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the other invocation never came", e);
            }
        }
        return new StreamsEventResponse();
    }
}
