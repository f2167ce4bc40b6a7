package dev.sluice.localstack.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Injects faults into chosen SDK calls, for fault tests against the emulators: an {@link
 * ExecutionInterceptor} added to a client's override configuration. Calls are counted per
 * operation (request class, e.g. {@code PutItemRequest}); a rule fires on the n-th call of its
 * operation, counting retries as calls.
 */
public final class FaultInjector implements ExecutionInterceptor {

    /** What goes wrong. */
    public enum Fault {
        /** The request never reaches the service (a connection time-out before sending). */
        NOT_SENT,
        /** The service applied the request, but its response is lost: the caller sees an error. */
        RESPONSE_LOST
    }

    /** A planned fault and whether it fired. */
    public record Rule(String operation, int call, Fault fault) {}

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<Rule> fired = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    /** Plans {@code fault} for the {@code call}-th (1-based) call of {@code operation}. */
    public FaultInjector on(String operation, int call, Fault fault) {
        rules.add(new Rule(operation, call, fault));
        return this;
    }

    /** The planned faults that fired, in order. */
    public List<Rule> fired() {
        return new ArrayList<>(fired);
    }

    /** How many calls of an operation went out (retries included). */
    public int calls(String operation) {
        AtomicInteger count = calls.get(operation);
        return count == null ? 0 : count.get();
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = operation(context.request());
        int call = calls.computeIfAbsent(operation, o -> new AtomicInteger()).incrementAndGet();
        attributes.putAttribute(CallNumber.KEY, call);
        fire(operation, call, Fault.NOT_SENT);
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        Integer call = attributes.getAttribute(CallNumber.KEY);
        fire(operation(context.request()), call == null ? 0 : call, Fault.RESPONSE_LOST);
    }

    private void fire(String operation, int call, Fault fault) {
        for (Rule rule : rules) {
            if (rule.operation().equals(operation) && rule.call() == call && rule.fault() == fault) {
                fired.add(rule);
                throw SdkClientException.create("injected fault: " + fault + " on " + operation + " call " + call);
            }
        }
    }

    private static String operation(SdkRequest request) {
        String name = request.getClass().getSimpleName();
        return name.endsWith("Request") ? name.substring(0, name.length() - "Request".length()) : name;
    }

    /** The attribute that carries a call's number from before to after transmission. */
    private static final class CallNumber {
        static final software.amazon.awssdk.core.interceptor.ExecutionAttribute<Integer> KEY =
                new software.amazon.awssdk.core.interceptor.ExecutionAttribute<>("sluice.faults.call");
    }
}
