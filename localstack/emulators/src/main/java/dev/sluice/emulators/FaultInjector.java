package dev.sluice.emulators;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

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
        CRASH(true),
        /**
         * The call is held before it is sent until its release condition holds ({@link #late}), then
         * sent: the service applies it; by the time its response comes the caller's process is gone
         * (an {@link InjectedCrash}), as for a request still in flight when its Lambda invocation timed
         * out.
         */
        LATE(false),
        /**
         * Some entries of a {@code PutRecords} are refused ({@link #failEntries}): they are taken out
         * of the request before it is sent (so the stream never stores them) and put back into the
         * response as failed entries ({@code ProvisionedThroughputExceededException} or {@code
         * InternalFailure}), the others land.
         */
        ENTRIES_FAILED(false);

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
    private static final ExecutionAttribute<Rule> LANDED_LATE = new ExecutionAttribute<>("sluice.faults.late");
    private static final ExecutionAttribute<DroppedEntries> DROPPED = new ExecutionAttribute<>("sluice.faults.dropped");

    /** A held call's release: a condition made when the call is held, and the longest it is held. */
    private record Hold(Supplier<BooleanSupplier> release, Duration atMost) {}

    /** Entries taken out of a {@code PutRecords} request: their indexes in the original request. */
    private record DroppedEntries(int size, List<Integer> indexes, String stream) {}

    private final Map<Rule, Hold> holds = new ConcurrentHashMap<>();
    private final Map<Rule, Integer> entryFailures = new ConcurrentHashMap<>();

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

    /**
     * Plans a late call: the {@code call}-th call of {@code operation} on {@code resource} is held
     * before it is sent until {@code release} — a condition made at the moment the call is held — is
     * true (at most {@code atMost}), then sent; the service applies it, and its caller's process is
     * gone by the time the answer comes ({@link InjectedCrash} after transmission). It fires only if
     * the condition released it: a call let go by {@code atMost} is sent as well but does not count.
     */
    public FaultInjector late(
            String operation, String resource, int call, Supplier<BooleanSupplier> release, Duration atMost) {
        if (call < 1) {
            throw new IllegalArgumentException("calls are counted from 1, not " + call);
        }
        Rule rule = new Rule(operation, resource, call, Fault.LATE);
        rules.add(rule);
        holds.put(rule, new Hold(release, atMost));
        return this;
    }

    /**
     * Plans a partial failure of the {@code call}-th {@code PutRecords} request (an SDK retry of a
     * request is the same request) on {@code stream}: every {@code every}-th entry, starting with the
     * first, is taken out of the request before it is sent — the stream never stores it — and put back
     * into the response as failed, alternately with {@code ProvisionedThroughputExceededException} and
     * {@code InternalFailure}, as Kinesis answers a partly refused request; the other entries land.
     */
    public FaultInjector failEntries(String stream, int call, int every) {
        if (call < 1 || every < 1) {
            throw new IllegalArgumentException("calls and shares are counted from 1");
        }
        Rule rule = new Rule("PutRecords", stream, call, Fault.ENTRIES_FAILED);
        rules.add(rule);
        entryFailures.put(rule, every);
        return this;
    }

    /** Entries refused by {@link #failEntries} so far. */
    public int failedEntries() {
        return failedEntries.get();
    }

    private final AtomicInteger failedEntries = new AtomicInteger();

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
        hold(operation, resource.orElse(null), numbers, attributes);
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
        if (!(context.request() instanceof PutRecordsRequest put) || entryFailures.isEmpty()) {
            return context.request();
        }
        int request = count("request:PutRecords@" + put.streamName());
        for (Map.Entry<Rule, Integer> planned : entryFailures.entrySet()) {
            Rule rule = planned.getKey();
            if (rule.resource().equals(put.streamName()) && rule.call() == request && firedOnce.add(rule)) {
                List<Integer> indexes = new ArrayList<>();
                List<PutRecordsRequestEntry> kept = new ArrayList<>();
                for (int i = 0; i < put.records().size(); i++) {
                    if (i % planned.getValue() == 0) {
                        indexes.add(i);
                    } else {
                        kept.add(put.records().get(i));
                    }
                }
                fired.add(rule);
                failedEntries.addAndGet(indexes.size());
                attributes.putAttribute(
                        DROPPED, new DroppedEntries(put.records().size(), indexes, put.streamName()));
                return put.toBuilder().records(kept).build();
            }
        }
        return context.request();
    }

    @Override
    public SdkResponse modifyResponse(Context.ModifyResponse context, ExecutionAttributes attributes) {
        DroppedEntries dropped = attributes.getAttribute(DROPPED);
        if (dropped == null || !(context.response() instanceof PutRecordsResponse response)) {
            return context.response();
        }
        List<PutRecordsResultEntry> landed = response.records();
        List<PutRecordsResultEntry> all = new ArrayList<>(dropped.size());
        int next = 0;
        int failed = response.failedRecordCount() == null ? 0 : response.failedRecordCount();
        for (int i = 0; i < dropped.size(); i++) {
            if (dropped.indexes().contains(i)) {
                boolean throttled = all.size() % 2 == 0;
                all.add(PutRecordsResultEntry.builder()
                        .errorCode(throttled ? "ProvisionedThroughputExceededException" : "InternalFailure")
                        .errorMessage(
                                throttled
                                        ? "Rate exceeded for shard in stream " + dropped.stream() + " (injected)"
                                        : "Internal service failure. (injected)")
                        .build());
                failed++;
            } else {
                all.add(landed.get(next++));
            }
        }
        return response.toBuilder().records(all).failedRecordCount(failed).build();
    }

    /** Holds a planned late call until it is released; it is then sent, and answered to nobody. */
    private void hold(String operation, String resource, List<Integer> numbers, ExecutionAttributes attributes) {
        for (Map.Entry<Rule, Hold> planned : holds.entrySet()) {
            Rule rule = planned.getKey();
            if (callNumber(rule, operation, resource, numbers) != rule.call() || !firedOnce.add(rule)) {
                continue;
            }
            BooleanSupplier released = planned.getValue().release().get();
            long deadline = System.nanoTime() + planned.getValue().atMost().toNanos();
            boolean inTime;
            while (!(inTime = released.getAsBoolean()) && System.nanoTime() < deadline) {
                LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            }
            if (inTime) {
                fired.add(rule);
            }
            attributes.putAttribute(LANDED_LATE, rule);
        }
    }

    /** Which matching call of {@code rule}'s target this is, or -1 if the rule does not target it. */
    private static int callNumber(Rule rule, String operation, String resource, List<Integer> numbers) {
        if (!rule.operation().equals(operation)) {
            return -1;
        }
        if (rule.resource() == null) {
            return numbers.get(0);
        }
        return rule.resource().equals(resource) && numbers.size() > 1 ? numbers.get(1) : -1;
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        Rule late = attributes.getAttribute(LANDED_LATE);
        if (late != null) {
            throw new InjectedCrash("injected fault: LATE on " + late.target() + " call " + late.call()
                    + ": the request landed after its invocation timed out; nobody takes the answer");
        }
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
                    || holds.containsKey(rule)
                    || entryFailures.containsKey(rule)
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
            case LATE, ENTRIES_FAILED -> throw new IllegalStateException(rule + " is not fired this way");
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
