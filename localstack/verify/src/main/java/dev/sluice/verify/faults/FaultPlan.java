package dev.sluice.verify.faults;

import dev.sluice.emulators.FaultInjector;
import dev.sluice.local.provision.PipelineResources;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The faults of one scenario, planned against its freshly provisioned resources: SDK faults
 * (through a {@link FaultInjector} installed for the whole JVM, aimed at one table, bucket or queue),
 * crashes of the function after its writes, and actions on the stack while the producer is half
 * way (killing the runner, restarting Kinesis, splitting or merging shards), and producer re-sends of events
 * already sent.
 */
public final class FaultPlan {

    /** Something done to the stack mid-stream. */
    public enum Action {
        /** The event-source mapping runner dies (no graceful stop, no further checkpoint) and restarts. */
        KILL_RUNNER,
        /** kinesis-mock stops and starts again from its persisted data. */
        RESTART_KINESIS,
        /** The first shard of the input stream splits in two. */
        SPLIT_SHARD,
        /** The two open shards of the input stream with the highest hash keys merge into one. */
        MERGE_SHARDS;

        /** Whether the action reshards the input stream. */
        boolean reshards() {
            return this == SPLIT_SHARD || this == MERGE_SHARDS;
        }
    }

    private final PipelineResources resources;
    private final String stage;
    private final FaultInjector injector = new FaultInjector();
    private final Set<Integer> crashes = new TreeSet<>();
    private final Set<Integer> twins = new TreeSet<>();
    private final List<Action> actions = new ArrayList<>();
    private final AtomicInteger actionsDone = new AtomicInteger();
    private double resendShare;
    private double refusedShare;
    private Revocation revocation;
    private boolean personaAttempts;
    private int aggregateBytes;
    private int corruptEvery;

    /**
     * A grant the stage's role loses when the stage starts and gets back at its first denial.
     *
     * @param action the IAM action, e.g. {@code dynamodb:PutItem}
     * @param resourceKind the resource's {@code sluice:kind} in the template
     * @param resourceName its {@code sluice:name} (the definition's name)
     */
    record Revocation(String action, String resourceKind, String resourceName) {}

    /**
     * The amount that marks a payment the aggregate store refuses ({@link #aggregateRefuses}): valid
     * (two decimals, below the schema's maximum) and above any amount the generator makes.
     */
    public static final BigDecimal REFUSED_AMOUNT = new BigDecimal("999999.99");

    FaultPlan(PipelineResources resources, String stage) {
        this.resources = resources;
        this.stage = stage;
    }

    /** The scenario's tables by logical name (physical names). */
    public String table(String logical) {
        return resources.tables().get(logical);
    }

    /** The scenario's streams by logical name (physical names). */
    public String stream(String logical) {
        return resources.streams().get(logical);
    }

    public String bucket() {
        return resources.bucket();
    }

    public String queueUrl(String logical) {
        return resources.queueUrls().get(logical);
    }

    public String stage() {
        return stage;
    }

    /** Plans an SDK fault on the {@code call}-th call of {@code operation} on {@code resource}. */
    public FaultPlan sdk(String operation, String resource, int call, FaultInjector.Fault fault) {
        injector.on(operation, resource, call, fault);
        return this;
    }

    /** Plans crashes of the function after the given invocations (1-based) returned. */
    public FaultPlan crashAfterWrites(Integer... invocations) {
        crashes.addAll(List.of(invocations));
        return this;
    }

    /**
     * Plans concurrent duplicates: the given invocations (1-based) are delivered at the same moment
     * to a second execution environment of the function, which writes the same batch concurrently.
     */
    public FaultPlan deliverTwiceAtOnce(Integer... invocations) {
        twins.addAll(List.of(invocations));
        return this;
    }

    Set<Integer> twins() {
        return twins;
    }

    /** Plans an action once half the events are produced. */
    public FaultPlan midway(Action action) {
        actions.add(action);
        return this;
    }

    /** Plans producer re-sends: this share of the first half's events is sent again with the second half. */
    public FaultPlan resend(double share) {
        resendShare = share;
        return this;
    }

    double resendShare() {
        return resendShare;
    }

    /**
     * Plans payments the aggregate store refuses for good: this share of the valid events carries
     * {@link #REFUSED_AMOUNT}, and every {@code UpdateItem} on {@code table} that would count one (its
     * new {@code max} is that amount: nothing else reaches it, and a refused one is never stored) is
     * refused with HTTP 400 {@code ValidationException}, on every attempt and every redelivery, as
     * DynamoDB refuses a value it cannot store. Such payments are valid: the lake and the table hold
     * them, the dead-letter queue holds them as {@code SINK_REJECTED}, and no aggregate counts them.
     */
    public FaultPlan aggregateRefuses(String table, double share) {
        refusedShare = share;
        injector.refuse(
                "UpdateItem",
                table,
                request -> setsNumber(request, "max", REFUSED_AMOUNT),
                "injected: the aggregate store refuses a payment of " + REFUSED_AMOUNT.toPlainString());
        return this;
    }

    double refusedShare() {
        return refusedShare;
    }

    /**
     * Revokes one grant of the stage's role in the enforced template as the stage starts (its
     * batches then fail with AccessDenied) and restores it at the first denial, within the stage's
     * retry budget: nothing may be lost or applied twice, and the stage's {@code FailedBatches}
     * metric must show the failures.
     */
    public FaultPlan revokeGrant(String action, String resourceKind, String resourceName) {
        revocation = new Revocation(action, resourceKind, resourceName);
        return this;
    }

    Revocation revocation() {
        return revocation;
    }

    /**
     * After the run, each persona attempts what it must not (read the restricted raw stream or the
     * dead-letter queue, write where it may only read...): every attempt must be denied, as AWS
     * denies it, and logged.
     */
    public FaultPlan personasAttemptForbidden() {
        personaAttempts = true;
        return this;
    }

    boolean personaAttempts() {
        return personaAttempts;
    }

    /**
     * The producer aggregates as the KPL does: user records packed into aggregates of at most {@code
     * maxBytes} per shard, so the stage's batches hold aggregates and every fault strikes in the middle
     * of one.
     */
    public FaultPlan aggregate(int maxBytes) {
        aggregateBytes = maxBytes;
        return this;
    }

    /** The size limit of the producer's aggregates, 0 when it does not aggregate. */
    int aggregateBytes() {
        return aggregateBytes;
    }

    /**
     * Every {@code every}-th aggregate the producer puts has a corrupt MD5 digest: it must be
     * dead-lettered whole as {@code MALFORMED_AGGREGATE} while the shard moves on.
     */
    public FaultPlan corruptAggregates(int every) {
        corruptEvery = every;
        return this;
    }

    int corruptEvery() {
        return corruptEvery;
    }

    /**
     * When a late call is let through: once its invocation timed out and the retry of that batch made
     * every record durable, or at the moment the invocation timed out (the retry then begins while the
     * call lands).
     */
    public enum Release {
        AFTER_RETRY,
        AT_TIMEOUT,
        /**
         * Once its invocation timed out and another invocation — the next batch of the shard, when
         * the mapping gave up on this one — dropped the lake intent the held call was writing for
         * (the intent is no longer open, and no object holds its records).
         */
        AFTER_ABANDONED,
        /**
         * Once every mid-stream action ({@link #midway}) is done and the invocation timed out: the
         * invocation is in flight, its call held, across the whole action (a reshard), and the call
         * lands after it while the batch's retry runs.
         */
        AFTER_ACTIONS
    }

    /** A call held until its invocation timed out ({@link #late}). */
    record Late(String operation, String resource, int call, Release release) {}

    private final List<Late> lateCalls = new ArrayList<>();
    private java.time.Duration functionTimeout;

    /** The function's timeout for this scenario, shorter than the template's so that the run stays short. */
    public FaultPlan functionTimeout(java.time.Duration timeout) {
        functionTimeout = timeout;
        return this;
    }

    java.time.Duration functionTimeout() {
        return functionTimeout;
    }

    /**
     * Plans a request that lands after its invocation timed out: the {@code call}-th call of {@code
     * operation} on {@code resource} is held before it is sent — its invocation runs past the
     * function's timeout and fails, Lambda retries the batch in a fresh environment — and sent when
     * {@code release} says; the service applies it, its caller's process is gone.
     */
    public FaultPlan late(String operation, String resource, int call, Release release) {
        lateCalls.add(new Late(operation, resource, call, release));
        return this;
    }

    List<Late> lateCalls() {
        return lateCalls;
    }

    private final Set<String> abandonedKeys = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Records the key of a lake intent another invocation abandoned while a late call was held. */
    void abandoned(String key) {
        abandonedKeys.add(key);
    }

    /** Keys of lake intents abandoned while their PUT was held: no object may hold records under them. */
    Set<String> abandonedKeys() {
        return Set.copyOf(abandonedKeys);
    }

    /** Whether an update sets {@code attribute} to {@code value}. */
    static boolean setsNumber(SdkRequest request, String attribute, BigDecimal value) {
        if (!(request instanceof UpdateItemRequest update) || !update.hasExpressionAttributeNames()) {
            return false;
        }
        for (Map.Entry<String, String> name : update.expressionAttributeNames().entrySet()) {
            if (name.getValue().equals(attribute) && name.getKey().startsWith("#")) {
                AttributeValue set = update.expressionAttributeValues()
                        .get(":" + name.getKey().substring(1));
                if (set != null && set.n() != null && new BigDecimal(set.n()).compareTo(value) == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    FaultInjector injector() {
        return injector;
    }

    Set<Integer> crashes() {
        return crashes;
    }

    List<Action> actions() {
        return actions;
    }

    void actionDone() {
        actionsDone.incrementAndGet();
    }

    int actionsDone() {
        return actionsDone.get();
    }

    /** Every planned fault: SDK faults (late calls among them, once armed), crashes and mid-stream actions. */
    public int plannedCount() {
        return injector.planned().size()
                + crashes.size()
                + twins.size()
                + actions.size()
                + (resendShare > 0 ? 1 : 0)
                + (revocation != null ? 1 : 0)
                + (personaAttempts ? 1 : 0)
                + (corruptEvery > 0 ? 1 : 0);
    }
}
