package dev.sluice.emulators;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Injects faults into chosen SDK calls, for fault tests against the emulators. Add it to a client's
 * override configuration, or {@link #install()} it for every client of this JVM (through {@link
 * GlobalFaults}, the SDK's global interceptor hook) — that is how faults reach the clients a
 * function builds for itself.
 *
 * <p>Calls are counted per rule target: an operation (request class without {@code Request}, e.g.
 * {@code PutItem}), optionally narrowed to one resource (table, bucket, queue URL or stream name,
 * as the request names it). A rule fires once, on the n-th such call, retries counting as calls, so
 * the SDK's own retry of a throttled or failed attempt is the next call. A fault after sending
 * (lost response, time-out, crash) moves to the next call when the n-th never finished sending
 * (the emulator dropped the connection).
 */
public final class FaultInjector implements ExecutionInterceptor {

    /** What goes wrong. */
    public enum Fault {
        /** The request never reaches the service (a connection refused before sending). */
        NOT_SENT(false),
        /** The service throttles the request (HTTP 400 {@code ThrottlingException}); nothing applied. */
        THROTTLED(false),
        /** The service fails with HTTP 500 before applying anything. */
        SERVER_ERROR(false),
        /**
         * The service refuses the request for good (HTTP 400 {@code ValidationException}, as for an
         * item over the size limit); nothing applied, and retrying cannot help.
         */
        REJECTED(false),
        /** The service applied the request, but the attempt timed out waiting for its response. */
        TIMEOUT(true),
        /** The service applied the request, but its response is lost: the caller sees an error. */
        RESPONSE_LOST(true),
        /**
         * The service applied the request, then the process running the caller dies: an {@link
         * InjectedCrash} (an {@link Error}, which no retry loop catches) unwinds the handler.
         */
        CRASH(true);

        private final boolean applied;

        Fault(boolean applied) {
            this.applied = applied;
        }

        /** Whether the service has applied the request when this fault strikes. */
        public boolean applied() {
            return applied;
        }
    }

    /**
     * A planned fault.
     *
     * @param operation the operation, e.g. {@code PutItem}
     * @param resource the table, bucket, queue URL or stream it must name, or {@code null} for any
     * @param call which matching call (1-based) it strikes
     * @param fault what happens
     */
    public record Rule(String operation, String resource, int call, Fault fault) {

        String target() {
            return resource == null ? operation : operation + "@" + resource;
        }
    }

    /** The process running the caller died (simulated); not an SDK error, so nothing retries it. */
    public static final class InjectedCrash extends Error {
        private static final long serialVersionUID = 1L;

        InjectedCrash(String message) {
            super(message, null, false, false);
        }
    }

    private static final ExecutionAttribute<List<Integer>> CALLS = new ExecutionAttribute<>("sluice.faults.calls");

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final Map<Rule, Refusal> refusals = new ConcurrentHashMap<>();

    /** A standing refusal: every matching call is refused, as the service refuses a request it finds invalid. */
    private record Refusal(Predicate<SdkRequest> when, String message) {}

    private final List<Rule> fired = new CopyOnWriteArrayList<>();
    private final java.util.Set<Rule> firedOnce = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    /** Plans {@code fault} for the {@code call}-th (1-based) call of {@code operation}, on any resource. */
    public FaultInjector on(String operation, int call, Fault fault) {
        return on(operation, null, call, fault);
    }

    /** Plans {@code fault} for the {@code call}-th (1-based) call of {@code operation} on {@code resource}. */
    public FaultInjector on(String operation, String resource, int call, Fault fault) {
        if (call < 1) {
            throw new IllegalArgumentException("calls are counted from 1, not " + call);
        }
        rules.add(new Rule(operation, resource, call, fault));
        return this;
    }

    /** The planned faults, in planning order. */
    public List<Rule> planned() {
        return new ArrayList<>(rules);
    }

    /** The planned faults that fired, in firing order. */
    public List<Rule> fired() {
        return new ArrayList<>(fired);
    }

    /** How many calls of an operation went out (retries included), on any resource. */
    public int calls(String operation) {
        AtomicInteger count = calls.get(operation);
        return count == null ? 0 : count.get();
    }

    /**
     * Plans a standing refusal: every call of {@code operation} on {@code resource} whose request
     * {@code when} accepts is refused before it is sent, with HTTP 400 {@code ValidationException}
     * and the message {@code "One or more parameter values were invalid: " + reason} — the shape of
     * DynamoDB's own validation errors. Unlike the other faults it strikes every time, as a real
     * validation error does on every retry and redelivery. It counts as one planned fault, fired
     * once it refused a call.
     */
    public FaultInjector refuse(String operation, String resource, Predicate<SdkRequest> when, String reason) {
        Rule rule = new Rule(operation, resource, 1, Fault.REJECTED);
        rules.add(rule);
        refusals.put(rule, new Refusal(when, "One or more parameter values were invalid: " + reason));
        return this;
    }

    /** How many calls the standing refusals refused. */
    public int refused() {
        return refusedCalls.get();
    }

    private final AtomicInteger refusedCalls = new AtomicInteger();

    /**
     * Makes this injector act on every SDK client of this JVM until the returned handle is closed.
     * One injector at a time.
     */
    public GlobalFaults.Installation install() {
        return GlobalFaults.install(this);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        SdkRequest request = context.request();
        String operation = operation(request);
        Optional<String> resource = resource(request);
        List<Integer> numbers = new ArrayList<>(2);
        numbers.add(count(operation));
        resource.ifPresent(r -> numbers.add(count(operation + "@" + r)));
        attributes.putAttribute(CALLS, numbers);
        refuse(request, operation, resource.orElse(null));
        fire(operation, resource.orElse(null), numbers, false);
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        List<Integer> numbers = attributes.getAttribute(CALLS);
        if (numbers != null) {
            SdkRequest request = context.request();
            fire(operation(request), resource(request).orElse(null), numbers, true);
        }
    }

    private void refuse(SdkRequest request, String operation, String resource) {
        for (Map.Entry<Rule, Refusal> refusal : refusals.entrySet()) {
            Rule rule = refusal.getKey();
            if (rule.operation().equals(operation)
                    && (rule.resource() == null || rule.resource().equals(resource))
                    && refusal.getValue().when().test(request)) {
                refusedCalls.incrementAndGet();
                if (firedOnce.add(rule)) {
                    fired.add(rule);
                }
                throw serviceError(
                        400, "ValidationException", refusal.getValue().message());
            }
        }
    }

    private int count(String target) {
        return calls.computeIfAbsent(target, o -> new AtomicInteger()).incrementAndGet();
    }

    private void fire(String operation, String resource, List<Integer> numbers, boolean afterSending) {
        for (Rule rule : rules) {
            if (refusals.containsKey(rule)
                    || rule.fault().applied() != afterSending
                    || !rule.operation().equals(operation)) {
                continue;
            }
            int call;
            if (rule.resource() == null) {
                call = numbers.get(0);
            } else if (rule.resource().equals(resource) && numbers.size() > 1) {
                call = numbers.get(1);
            } else {
                continue;
            }
            // a fault after sending strikes the first call at or after its number that completes its
            // transmission (an attempt the network broke never gets there); one before sending strikes
            // exactly its call, which always comes
            boolean due = afterSending ? call >= rule.call() : call == rule.call();
            if (due && firedOnce.add(rule)) {
                fired.add(rule);
                throw failure(rule, call);
            }
        }
    }

    private static RuntimeException failure(Rule rule, int call) {
        String message = "injected fault: " + rule.fault() + " on " + rule.target() + " call " + call;
        return switch (rule.fault()) {
            case NOT_SENT, RESPONSE_LOST -> SdkClientException.create(message);
            case TIMEOUT -> ApiCallAttemptTimeoutException.create(message, null);
            case THROTTLED -> serviceError(400, "ThrottlingException", message);
            case SERVER_ERROR -> serviceError(500, "InternalFailure", message);
            case REJECTED -> serviceError(400, "ValidationException", message);
            case CRASH -> throw new InjectedCrash(message);
        };
    }

    private static AwsServiceException serviceError(int status, String code, String message) {
        return AwsServiceException.builder()
                .statusCode(status)
                .message(message)
                .awsErrorDetails(AwsErrorDetails.builder()
                        .errorCode(code)
                        .errorMessage(message)
                        .build())
                .build();
    }

    private static String operation(SdkRequest request) {
        String name = request.getClass().getSimpleName();
        return name.endsWith("Request") ? name.substring(0, name.length() - "Request".length()) : name;
    }

    /** The table, bucket, queue or stream a request names, if it names one of them. */
    static Optional<String> resource(SdkRequest request) {
        for (String field : new String[] {"TableName", "Bucket", "QueueUrl", "StreamName"}) {
            Optional<String> value = request.getValueForField(field, String.class);
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }
}
