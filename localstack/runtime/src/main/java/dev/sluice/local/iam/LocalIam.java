package dev.sluice.local.iam;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.iam.AccessRequest;
import dev.sluice.emulators.iam.Authorizer;
import dev.sluice.emulators.iam.AwsService;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.emulators.iam.KeyUse;
import dev.sluice.emulators.iam.ServiceCall;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * IAM on the local stack: the {@link Authorizer} its access gates ask, built from the access models
 * of the pipelines deployed on it ({@link AccessModel}, one per synthesized template) and answered
 * by the real policy evaluator ({@link PolicyEvaluator}), with a decision cache. The stack's own key
 * ({@link LocalAws#ACCESS_KEY_ID}) is the local administrator (the deployer; the reconciler reads
 * as it) and is allowed everything; every role of every template has its own local key.
 *
 * <p>For each authorization it evaluates the action on the resource with the principal's identity
 * policies, permissions boundary and the resource's policy, then — when the service uses the
 * resource's customer-managed KMS key on the caller's behalf — the implied {@code kms:GenerateDataKey}
 * or {@code kms:Decrypt} on the key with its key policy, {@code kms:ViaService} and {@code
 * aws:PrincipalIsAWSService=false}, as AWS does.
 */
public final class LocalIam implements Authorizer, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LocalIam.class);
    private static final Map<LocalAws, LocalIam> BY_STACK = Collections.synchronizedMap(new WeakHashMap<>());

    private final LocalAws aws;
    private final PolicyEvaluator evaluator;
    private final Map<String, AccessModel> models = new LinkedHashMap<>();
    private volatile Map<String, Principals> byKey = Map.of();
    private final Map<String, String> sessionKeys = new LinkedHashMap<>();
    private final Map<String, Decision> cache = new ConcurrentHashMap<>();
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong logWarnings = new AtomicLong();
    private final AtomicLong serviceWarnings = new AtomicLong();

    private record Principals(AccessModel model, AccessModel.Principal principal) {}

    private LocalIam(LocalAws aws, PolicyEvaluator evaluator) {
        this.aws = aws;
        this.evaluator = evaluator;
    }

    /**
     * The stack's IAM, started on first use (the evaluator process) and installed as its gates'
     * authorizer; empty when the stack does not enforce IAM.
     */
    public static Optional<LocalIam> of(LocalAws aws) {
        if (!aws.iamEnforced()) {
            return Optional.empty();
        }
        synchronized (BY_STACK) {
            LocalIam iam = BY_STACK.get(aws);
            if (iam == null || aws.isClosed()) {
                PolicyEvaluator evaluator = PolicyEvaluator.start(
                        aws.options().nodeExecutable(), aws.localstackDirectory(), aws.logDirectory());
                iam = new LocalIam(aws, evaluator);
                BY_STACK.put(aws, iam);
                aws.accessControl().authorizer(iam);
                LocalIam started = iam;
                Runtime.getRuntime().addShutdownHook(new Thread(started::close, "iam-evaluator-stop"));
            }
            return Optional.of(iam);
        }
    }

    /**
     * Deploys (or replaces) a template's access model: its roles' keys become known and its policies
     * apply from the next request on. Replacing is how a grant is revoked or restored mid-run.
     */
    public synchronized void deploy(AccessModel model) {
        checkServiceUses(model);
        Map<String, AccessModel> deployed = new LinkedHashMap<>(models);
        deployed.put(model.stackName(), model);
        Map<String, Principals> keys = new LinkedHashMap<>();
        Map<String, String> roles = new LinkedHashMap<>();
        for (AccessModel m : deployed.values()) {
            for (AccessModel.Principal p : m.principals().values()) {
                // a key or a role ARN is one stack's principal, never two (the last would silently win)
                Principals other = keys.put(p.accessKeyId(), new Principals(m, p));
                String otherStack = roles.put(p.arn(), m.stackName());
                if (other != null || (otherStack != null && !otherStack.equals(m.stackName()))) {
                    throw new IllegalStateException(model.stackName() + ": principal " + p.arn()
                            + " is already a principal of stack "
                            + (other != null ? other.model().stackName() : otherStack)
                            + " (two stacks cannot share a role or its keys)");
                }
            }
        }
        models.put(model.stackName(), model);
        sessionKeys.forEach((session, role) -> {
            Principals principals = keys.get(role);
            if (principals != null) {
                keys.put(session, principals);
            }
        });
        byKey = Map.copyOf(keys);
        // decisions under way for the previous models must not be cached (see decide)
        generation.incrementAndGet();
        cache.clear();
        LOG.info(
                "IAM enforced for {} ({} unresolved)", model, model.unresolved().size());
    }

    /**
     * Gives a role one more access key, as AWS gives each ECS task (or Lambda sandbox) its own
     * temporary credentials of the same role: requests signed with {@code sessionKeyId} are the
     * role's. The gates can tell its callers apart (a partition cuts one of them off).
     *
     * @param roleKeyId the role's own local key
     */
    public synchronized void addSessionKey(String sessionKeyId, String roleKeyId) {
        Principals principals = byKey.get(roleKeyId);
        if (principals == null) {
            throw new IllegalArgumentException("no role has the access key " + roleKeyId);
        }
        sessionKeys.put(sessionKeyId, roleKeyId);
        Map<String, Principals> keys = new LinkedHashMap<>(byKey);
        keys.put(sessionKeyId, principals);
        byKey = Map.copyOf(keys);
    }

    /** The deployed model of a stack, if any. */
    public synchronized Optional<AccessModel> model(String stackName) {
        return Optional.ofNullable(models.get(stackName));
    }

    /** Credentials of a principal. */
    public static AwsCredentialsProvider credentials(AccessModel.Principal principal) {
        return StaticCredentialsProvider.create(
                AwsBasicCredentials.create(principal.accessKeyId(), principal.secretAccessKey()));
    }

    /** The secret of a role's (or a session's) local key, to verify signatures with; null when unknown. */
    @Override
    public String secretAccessKey(String accessKeyId) {
        Principals principals = accessKeyId == null ? null : byKey.get(accessKeyId);
        return principals == null ? null : principals.principal().secretAccessKey();
    }

    @Override
    public Decision authorize(String accessKeyId, ServiceCall call) {
        if (LocalAws.ACCESS_KEY_ID.equals(accessKeyId)) {
            return Decision.ALLOWED;
        }
        Principals principals = accessKeyId == null ? null : byKey.get(accessKeyId);
        if (principals == null) {
            return new Decision.UnknownKey(accessKeyId);
        }
        for (AccessRequest request : call.requests()) {
            Decision decision = decide(principals, call.service(), request);
            if (!(decision instanceof Decision.Allowed)) {
                return decision;
            }
        }
        return Decision.ALLOWED;
    }

    /** One authorization (and its implied KMS call), through the cache. */
    public Decision decide(AccessModel.Principal principal, AwsService service, AccessRequest request) {
        Principals principals = byKey.get(principal.accessKeyId());
        if (principals == null) {
            return new Decision.UnknownKey(principal.accessKeyId());
        }
        return decide(principals, service, request);
    }

    private Decision decide(Principals principals, AwsService service, AccessRequest request) {
        lookups.incrementAndGet();
        String key = principals.principal().accessKeyId()
                + '\n'
                + request.action()
                + '\n'
                + request.resource()
                + '\n'
                + request.context()
                + '\n'
                + request.keyUse();
        Decision cached = cache.get(key);
        if (cached != null) {
            hits.incrementAndGet();
            return cached;
        }
        long before = generation.get();
        Decision decision = evaluate(principals, service, request);
        synchronized (this) {
            if (generation.get() == before) {
                cache.put(key, decision);
            }
        }
        return decision;
    }

    private Decision evaluate(Principals principals, AwsService service, AccessRequest request) {
        AccessModel model = principals.model();
        AccessModel.Principal principal = principals.principal();
        String account = aws.accountId();
        String caller = principal.sessionArn(account);
        Map<String, List<String>> context = new LinkedHashMap<>(baseContext(principal, account));
        context.putAll(request.context());
        PolicyEvaluator.Result result = evaluator.evaluate(new PolicyEvaluator.Request(
                caller,
                request.action(),
                request.resource(),
                account,
                context,
                principal.identityPolicies(),
                principal.boundaries(),
                resourcePolicy(request.resource()).orElse(null)));
        if (!result.allowed()) {
            return new Decision.Denied(
                    caller, request.action(), request.resource(), reason(result, request.action()), false);
        }
        if (request.keyUse() == KeyUse.NONE) {
            return Decision.ALLOWED;
        }
        Optional<String> key = encryptionKey(request.resource());
        if (key.isEmpty()) {
            return Decision.ALLOWED;
        }
        String kmsAction = request.keyUse().kmsAction();
        Map<String, List<String>> kmsContext = new LinkedHashMap<>(baseContext(principal, account));
        kmsContext.put("kms:ViaService", List.of(service.viaService(aws.region().id())));
        kmsContext.put("kms:CallerAccount", List.of(account));
        kmsContext.putAll(service.encryptionContext(request.resource(), account));
        PolicyEvaluator.Result kms = evaluator.evaluate(new PolicyEvaluator.Request(
                caller,
                kmsAction,
                key.get(),
                account,
                kmsContext,
                principal.identityPolicies(),
                principal.boundaries(),
                resourcePolicy(key.get()).orElse(null)));
        if (!kms.allowed()) {
            return new Decision.Denied(caller, kmsAction, key.get(), reason(kms, kmsAction), true);
        }
        return Decision.ALLOWED;
    }

    private synchronized Optional<com.fasterxml.jackson.databind.JsonNode> resourcePolicy(String arn) {
        return onlyOne(arn, "resource policy", model -> model.resourcePolicy(arn));
    }

    private synchronized Optional<String> encryptionKey(String arn) {
        return onlyOne(arn, "encryption key", model -> model.encryptionKey(arn));
    }

    /**
     * What exactly one deployed stack says of a resource: in AWS a resource belongs to one stack, so
     * two stacks answering for one ARN is a local naming defect, refused, never resolved by order.
     */
    private <T> Optional<T> onlyOne(
            String arn, String what, java.util.function.Function<AccessModel, Optional<T>> lookup) {
        Optional<T> found = Optional.empty();
        String owner = null;
        for (AccessModel model : models.values()) {
            Optional<T> answer = lookup.apply(model);
            if (answer.isEmpty()) {
                continue;
            }
            if (owner != null) {
                throw new IllegalStateException("two stacks hold a " + what + " for " + arn + ": " + owner + " and "
                        + model.stackName() + " (a resource belongs to one stack)");
            }
            owner = model.stackName();
            found = answer;
        }
        return found;
    }

    private static String reason(PolicyEvaluator.Result result, String action) {
        if (result.reason() != null && !result.reason().isBlank()) {
            return "Error".equals(result.result())
                    ? "the policy evaluator refused the request: " + result.reason()
                    : result.reason();
        }
        return "no identity-based policy allows the " + action + " action";
    }

    private static Map<String, List<String>> baseContext(AccessModel.Principal principal, String account) {
        Map<String, List<String>> context = new LinkedHashMap<>();
        context.put("aws:PrincipalArn", List.of(principal.arn()));
        context.put("aws:PrincipalAccount", List.of(account));
        context.put("aws:PrincipalType", List.of("AssumedRole"));
        context.put("aws:userid", List.of("AROA" + principal.accessKeyId().substring(4) + ":local"));
        context.put("aws:PrincipalIsAWSService", List.of("false"));
        // loopback HTTP stands in for the TLS every AWS client uses
        context.put("aws:SecureTransport", List.of("true"));
        context.put("s3:TlsVersion", List.of("1.3"));
        context.put("aws:MultiFactorAuthPresent", List.of("false"));
        return context;
    }

    /**
     * Checks at a function's start that its role may write its log group ({@code
     * logs:CreateLogStream}, {@code logs:PutLogEvents}): AWS drops the logs of a function that may
     * not, silently; here it is a warning, counted.
     */
    public void checkLogDelivery(AccessModel.Principal role, String logGroup, String function) {
        Principals principals = byKey.get(role.accessKeyId());
        if (principals == null) {
            return;
        }
        String region = aws.region().id();
        String stream =
                "arn:aws:logs:" + region + ":" + aws.accountId() + ":log-group:" + logGroup + ":log-stream:local";
        for (String action : List.of("logs:CreateLogStream", "logs:PutLogEvents")) {
            Decision decision = decide(principals, AwsService.LOGS, AccessRequest.of(action, stream));
            if (decision instanceof Decision.Denied denied) {
                logWarnings.incrementAndGet();
                LOG.warn(
                        "function {} may not write its logs (AWS drops them silently): {}", function, denied.message());
            }
        }
    }

    /**
     * Evaluates what AWS services do as themselves with the model's keys and topics ({@link
     * AccessModel.ServiceUse}) against their key and resource policies: a use AWS checks when the
     * resource is created (CloudWatch Logs and a log group's key) fails the deployment here too, with
     * one line; a use AWS checks when it happens (an alarm publishing to its encrypted topic) is a
     * warning, counted ({@link #serviceWarnings}).
     */
    private void checkServiceUses(AccessModel model) {
        for (AccessModel.ServiceUse use : model.serviceUses()) {
            for (AccessModel.Check check : use.checks()) {
                PolicyEvaluator.Result result = evaluator.evaluate(new PolicyEvaluator.Request(
                        use.principal(),
                        check.action(),
                        check.resource(),
                        aws.accountId(),
                        check.context(),
                        List.of(),
                        List.of(),
                        model.resourcePolicy(check.resource()).orElse(null)));
                if (result.allowed()) {
                    continue;
                }
                String denial = "Service " + use.principal() + " is not authorized to perform: " + check.action()
                        + " on resource: " + check.resource() + " because " + reason(result, check.action());
                if (use.failsDeployment()) {
                    throw new IllegalStateException(
                            model.stackName() + ": AWS would refuse the deployment: " + use.purpose() + ": " + denial);
                }
                serviceWarnings.incrementAndGet();
                LOG.warn("{}: {} would fail in AWS when it happens: {}", model.stackName(), use.purpose(), denial);
                break;
            }
        }
    }

    /** Uses by AWS services that AWS would refuse when they happen (see {@link #checkServiceUses}). */
    public long serviceWarnings() {
        return serviceWarnings.get();
    }

    /** Functions' log writes that AWS would drop (see {@link #checkLogDelivery}). */
    public long logWarnings() {
        return logWarnings.get();
    }

    /** How many authorizations were looked up, and how many the cache answered. */
    public long lookups() {
        return lookups.get();
    }

    public long cacheHits() {
        return hits.get();
    }

    /** The evaluator's decisions so far (cache misses, two for an implied KMS call). */
    public long evaluations() {
        return evaluator.evaluations();
    }

    /** Time spent in the evaluator, in milliseconds. */
    public long evaluationMillis() {
        return evaluator.evaluationNanos() / 1_000_000;
    }

    /**
     * The RESULT fields of a run on the stack: {@code iam=enforced access_denied=N} (N calls denied
     * by the gates), or {@code iam=off}.
     */
    public static String resultFields(LocalAws aws) {
        return aws.iamEnforced()
                ? "iam=enforced access_denied=" + aws.accessControl().denied()
                : "iam=off";
    }

    /** The stack's IAM figures (decisions, cache hit rate, evaluator time), if it enforces IAM and was used. */
    public static Optional<String> summaryOf(LocalAws aws) {
        synchronized (BY_STACK) {
            return Optional.ofNullable(BY_STACK.get(aws)).map(LocalIam::summary);
        }
    }

    /** One line of figures: decisions, cache hit rate, evaluator time. */
    public String summary() {
        long lookups = lookups();
        double hitRate = lookups == 0 ? 0 : 100.0 * cacheHits() / lookups;
        long evaluations = evaluations();
        long millis = Math.max(1, evaluationMillis());
        return String.format(
                java.util.Locale.ROOT,
                "iam: %d authorizations, cache hit rate %.1f%%, %d evaluator decisions in %d ms (%.0f decisions/s), %d denied",
                lookups,
                hitRate,
                evaluations,
                millis,
                evaluations * 1000.0 / millis,
                aws.accessControl().denied());
    }

    @Override
    public void close() {
        evaluator.close();
    }
}
