package dev.sluice.local.iam;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IAM policy evaluator, {@code @cloud-copilot/iam-simulate} (AGPL-3.0-or-later), run as a
 * separate Node.js process ({@code localstack/bin/iam-evaluator.js}) and asked over its stdin and
 * stdout, one JSON line per request and answer. Nothing of it is linked into Java code. The process
 * ends with this JVM (its stdin closes).
 */
public final class PolicyEvaluator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyEvaluator.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);
    static final String SCRIPT = "bin/iam-evaluator.js";

    /**
     * An evaluation's outcome.
     *
     * @param result {@code Allowed}, {@code ImplicitlyDenied}, {@code ExplicitlyDenied} or {@code Error}
     * @param reason AWS's reason text for a denial
     */
    public record Result(String result, String reason) {
        public boolean allowed() {
            return "Allowed".equals(result);
        }
    }

    /**
     * One request to evaluate.
     *
     * @param principal the principal ARN (a role's session)
     * @param action the action
     * @param resource the resource ARN
     * @param context the context keys
     * @param identityPolicies the principal's identity policies
     * @param boundaries its permissions boundary
     * @param resourcePolicy the resource's policy, or null
     */
    public record Request(
            String principal,
            String action,
            String resource,
            String account,
            Map<String, List<String>> context,
            List<AccessModel.NamedPolicy> identityPolicies,
            List<AccessModel.NamedPolicy> boundaries,
            JsonNode resourcePolicy) {}

    private final Process process;
    private final OutputStream stdin;
    private final Map<Long, CompletableFuture<Result>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong evaluations = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    private PolicyEvaluator(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::readAnswers, "iam-evaluator-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts the evaluator process from the localstack directory (its {@code node_modules}). */
    public static PolicyEvaluator start(String node, Path localstack, Path logDirectory) {
        Path script = localstack.resolve(SCRIPT);
        if (!Files.isRegularFile(script)
                || !Files.isDirectory(localstack.resolve("node_modules/@cloud-copilot/iam-simulate"))) {
            throw new IllegalStateException("the IAM policy evaluator is not installed: run npm ci in " + localstack
                    + " (or turn IAM enforcement off with --iam off / SLUICE_IAM=off)");
        }
        try {
            Files.createDirectories(logDirectory);
            ProcessBuilder builder = new ProcessBuilder(node, script.toString())
                    .directory(localstack.toFile())
                    .redirectError(ProcessBuilder.Redirect.appendTo(logDirectory
                            .resolve("iam-evaluator-" + ProcessHandle.current().pid() + ".log")
                            .toFile()));
            PolicyEvaluator evaluator = new PolicyEvaluator(builder.start());
            evaluator.ready.get(30, TimeUnit.SECONDS);
            return evaluator;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the IAM policy evaluator (" + node + " " + script + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the IAM policy evaluator", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the IAM policy evaluator did not start: " + e.getMessage(), e);
        }
    }

    /** Evaluates one request (blocking). */
    public Result evaluate(Request request) {
        long id = ids.incrementAndGet();
        CompletableFuture<Result> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode line = JSON.createObjectNode();
        line.put("id", id);
        line.put("principal", request.principal());
        line.put("action", request.action());
        line.put("resource", request.resource());
        line.put("account", request.account());
        ObjectNode context = line.putObject("context");
        request.context().forEach((key, values) -> {
            if (values.size() == 1) {
                context.put(key, values.get(0));
            } else {
                values.forEach(v -> context.withArray(key).add(v));
            }
        });
        line.set("identityPolicies", policies(request.identityPolicies()));
        line.set("permissionBoundaries", policies(request.boundaries()));
        if (request.resourcePolicy() != null) {
            line.set("resourcePolicy", request.resourcePolicy());
        }
        long started = System.nanoTime();
        try {
            byte[] bytes = (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (stdin) {
                stdin.write(bytes);
                stdin.flush();
            }
            Result result = answer.get(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            evaluations.incrementAndGet();
            nanos.addAndGet(System.nanoTime() - started);
            if ("Error".equals(result.result())) {
                LOG.warn(
                        "the IAM policy evaluator refused {} on {}: {}",
                        request.action(),
                        request.resource(),
                        result.reason());
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("the IAM policy evaluator is gone", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while evaluating " + request.action(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the IAM policy evaluator did not answer: " + e, e);
        } finally {
            pending.remove(id);
        }
    }

    private static com.fasterxml.jackson.databind.node.ArrayNode policies(List<AccessModel.NamedPolicy> policies) {
        com.fasterxml.jackson.databind.node.ArrayNode out = JSON.createArrayNode();
        for (AccessModel.NamedPolicy policy : policies) {
            ObjectNode item = out.addObject();
            item.put("name", policy.name());
            item.set("policy", policy.document());
        }
        return out;
    }

    private void readAnswers() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                JsonNode answer = JSON.readTree(line);
                long id = answer.path("id").asLong(-1);
                if (id == 0) {
                    ready.complete(null);
                    continue;
                }
                CompletableFuture<Result> future = pending.get(id);
                if (future != null) {
                    future.complete(new Result(
                            answer.path("result").asText("Error"),
                            answer.path("reason").asText(null)));
                }
            }
        } catch (IOException e) {
            LOG.debug("the IAM policy evaluator's output ended", e);
        }
        IllegalStateException gone = new IllegalStateException("the IAM policy evaluator exited");
        ready.completeExceptionally(gone);
        pending.values().forEach(f -> f.completeExceptionally(gone));
    }

    /** Evaluations answered so far. */
    public long evaluations() {
        return evaluations.get();
    }

    /** Time spent waiting for answers, in nanoseconds. */
    public long evaluationNanos() {
        return nanos.get();
    }

    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // gone already
        }
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
