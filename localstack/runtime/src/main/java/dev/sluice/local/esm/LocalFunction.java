package dev.sluice.local.esm;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.serialization.PojoSerializer;
import com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers;
import dev.sluice.aws.FunctionEnvironment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kinesis-triggered function hosted in this JVM the way the Lambda Java runtime hosts it: the
 * handler is loaded by class name and built with its no-arg constructor while the function's
 * environment variables are in force; each invocation takes the JSON Lambda would send, read
 * through Lambda's own event deserialisation, and answers with the JSON Lambda would get back.
 * Concurrent invocations (one per shard, or more with a parallelization factor) run in separate
 * execution environments, each with its own handler instance, as in Lambda: they share no SDK
 * clients and no thread pools.
 */
public final class LocalFunction {

    private static final Logger LOG = LoggerFactory.getLogger(LocalFunction.class);

    private final String name;
    /**
     * The execution environments not running an invocation, the most recently used first. As in
     * Lambda, an environment runs one invocation at a time: an invocation that finds none idle (the
     * shards' batches running concurrently) gets a new one, with its own handler, clients and thread
     * pools; an environment whose invocation timed out is dropped.
     */
    private final java.util.concurrent.BlockingDeque<RequestHandler<KinesisEvent, StreamsEventResponse>> idle =
            new java.util.concurrent.LinkedBlockingDeque<>();

    private final java.util.concurrent.atomic.AtomicInteger environmentsStarted =
            new java.util.concurrent.atomic.AtomicInteger(1);

    private final PojoSerializer<KinesisEvent> input;
    private final PojoSerializer<StreamsEventResponse> output;
    private volatile Duration timeout;
    private final java.util.concurrent.ExecutorService environments =
            java.util.concurrent.Executors.newCachedThreadPool(runnable -> {
                Thread thread = new Thread(runnable, "lambda-invocation");
                thread.setDaemon(true);
                return thread;
            });
    private final java.util.concurrent.atomic.AtomicInteger timeouts = new java.util.concurrent.atomic.AtomicInteger();
    /** Per timed-out batch, the records (event ids) no later invocation has yet made durable. */
    private final List<java.util.Set<String>> unretried = new java.util.ArrayList<>();

    private final java.util.concurrent.atomic.AtomicInteger retried = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger invocations =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.ConcurrentSkipListSet<Integer> crashAfter =
            new java.util.concurrent.ConcurrentSkipListSet<>();
    private final java.util.concurrent.atomic.AtomicInteger crashes = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.function.Supplier<RequestHandler<KinesisEvent, StreamsEventResponse>> twins;
    private final java.util.concurrent.ConcurrentSkipListSet<Integer> twinAt =
            new java.util.concurrent.ConcurrentSkipListSet<>();
    private final java.util.concurrent.atomic.AtomicInteger twinInvocations =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong twinRecords = new java.util.concurrent.atomic.AtomicLong();

    /**
     * One invocation's duration as Lambda would bill it: the handler's run, from the call to its
     * return (the event's deserialisation and the response's serialisation left out).
     *
     * @param records records in the batch
     * @param nanos how long the handler ran
     */
    public record Timing(int records, long nanos) {}

    private final java.util.Queue<Timing> timings = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Every invocation that returned, in the order they returned (concurrent duplicates left out). */
    public java.util.List<Timing> timings() {
        return java.util.List.copyOf(timings);
    }

    private LocalFunction(
            String name,
            RequestHandler<KinesisEvent, StreamsEventResponse> handler,
            ClassLoader loader,
            Duration timeout,
            java.util.function.Supplier<RequestHandler<KinesisEvent, StreamsEventResponse>> twins) {
        this.name = name;
        this.idle.push(handler);
        this.twins = twins;
        this.input = LambdaEventSerializers.serializerFor(KinesisEvent.class, loader);
        this.output = LambdaEventSerializers.serializerFor(StreamsEventResponse.class, loader);
        this.timeout = timeout;
    }

    /**
     * Loads a handler as Lambda would.
     *
     * @param handlerName {@code com.example.Handler} or {@code com.example.Handler::handleRequest}
     * @param environment the function's environment variables
     */
    public static LocalFunction load(String name, String handlerName, Map<String, String> environment) {
        return load(name, handlerName, environment, Duration.ofMinutes(5));
    }

    /**
     * Loads a handler as Lambda would, with the function's timeout: an invocation still running when
     * it passes fails as timed out (a function error), and the next one runs in a fresh execution
     * environment while the timed-out one's requests may still be in flight.
     */
    @SuppressWarnings("unchecked")
    public static LocalFunction load(
            String name, String handlerName, Map<String, String> environment, Duration timeout) {
        String className =
                handlerName.contains("::") ? handlerName.substring(0, handlerName.indexOf("::")) : handlerName;
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("handler class " + className + " is not on the classpath", e);
        }
        if (!RequestHandler.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(
                    className + " does not implement RequestHandler<KinesisEvent, StreamsEventResponse>");
        }
        try {
            Object instance = FunctionEnvironment.with(
                    environment, () -> type.getConstructor().newInstance());
            // another execution environment of the same function (its own handler and clients), as
            // Lambda runs concurrent invocations
            java.util.function.Supplier<RequestHandler<KinesisEvent, StreamsEventResponse>> twins = () -> {
                try {
                    return (RequestHandler<KinesisEvent, StreamsEventResponse>) FunctionEnvironment.with(
                            environment, () -> type.getConstructor().newInstance());
                } catch (Exception e) {
                    throw new IllegalStateException("function " + name + " failed to initialise: " + e, e);
                }
            };
            return new LocalFunction(
                    name, (RequestHandler<KinesisEvent, StreamsEventResponse>) instance, loader, timeout, twins);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(
                    "function " + name + " failed to initialise: " + e.getCause(), e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("function " + name + " failed to initialise: " + e, e);
        }
    }

    public String name() {
        return name;
    }

    /**
     * Invokes the function with an event as JSON and returns its response as JSON.
     *
     * @throws FunctionError if the handler throws (Lambda reports a function error)
     */
    public String invoke(String eventJson) throws FunctionError {
        int invocation = invocations.incrementAndGet();
        KinesisEvent event = input.fromJson(new ByteArrayInputStream(eventJson.getBytes(StandardCharsets.UTF_8)));
        java.util.concurrent.CompletableFuture<Void> twin = null;
        if (twinAt.remove(invocation)) {
            twin = invokeTwin(eventJson, event.getRecords().size());
        }
        RequestHandler<KinesisEvent, StreamsEventResponse> idleEnvironment = idle.pollFirst();
        if (idleEnvironment == null) {
            idleEnvironment = twins.get();
            environmentsStarted.incrementAndGet();
        }
        RequestHandler<KinesisEvent, StreamsEventResponse> environment = idleEnvironment;
        Duration limit = timeout;
        java.util.concurrent.CompletableFuture<Void> concurrent = twin;
        java.util.concurrent.Future<StreamsEventResponse> running = environments.submit(() -> {
            StreamsEventResponse answer = environment.handleRequest(event, new LocalContext(name, limit));
            if (concurrent != null) {
                concurrent.join();
            }
            return answer;
        });
        StreamsEventResponse response;
        long started = System.nanoTime();
        try {
            response = running.get(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            timings.add(new Timing(event.getRecords().size(), System.nanoTime() - started));
            idle.push(environment);
        } catch (java.util.concurrent.TimeoutException e) {
            timedOut(event);
            // like Lambda, the environment is reset: it is not used again (the next invocation gets
            // another one), while the timed-out invocation's requests still in flight may land later
            LOG.warn("function {}: invocation {} timed out after {} ms", name, invocation, limit.toMillis());
            throw new FunctionError(name + ": Task timed out after " + limit.toMillis() / 1000.0 + " seconds", null);
        } catch (java.util.concurrent.ExecutionException e) {
            idle.push(environment); // the runtime reports the error and takes the next invocation
            LOG.warn("function {} failed: {}", name, e.getCause().toString());
            throw new FunctionError(name + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FunctionError(name + ": interrupted while waiting for the invocation", e);
        }
        Integer due = crashAfter.floor(invocation);
        if (due != null && crashAfter.remove(due)) {
            crashes.incrementAndGet();
            LOG.warn("function {} crashes after invocation {} returned (injected)", name, invocation);
            throw new FunctionError(name + ": injected crash after the handler's writes, before its response", null);
        }
        durable(event, response);
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        output.toJson(response == null ? new StreamsEventResponse() : response, json);
        return json.toString(StandardCharsets.UTF_8);
    }

    /**
     * Sets this function's timeout (the template's {@code Timeout} by default), e.g. shorter for a
     * fault scenario that makes an invocation outlast it.
     */
    public LocalFunction timeout(Duration limit) {
        this.timeout = limit;
        return this;
    }

    /**
     * Execution environments started so far: the first, one more for each invocation that found every
     * environment busy, and one more for each that found none because a time-out dropped it.
     */
    public int environments() {
        return environmentsStarted.get();
    }

    /** Invocations that timed out. */
    public int timeouts() {
        return timeouts.get();
    }

    /** Timed-out invocations whose every record a later invocation has since made durable. */
    public int retriedTimeouts() {
        return retried.get();
    }

    private void timedOut(KinesisEvent event) {
        java.util.Set<String> records = new java.util.HashSet<>();
        event.getRecords().forEach(r -> records.add(r.getEventID()));
        synchronized (unretried) {
            unretried.add(records);
        }
        timeouts.incrementAndGet();
    }

    /** The records an invocation that answered made durable: those before its first reported failure. */
    private void durable(KinesisEvent event, StreamsEventResponse response) {
        synchronized (unretried) {
            if (unretried.isEmpty()) {
                return;
            }
            java.util.Set<String> failed = new java.util.HashSet<>();
            if (response != null && response.getBatchItemFailures() != null) {
                response.getBatchItemFailures().forEach(f -> failed.add(f.getItemIdentifier()));
            }
            for (KinesisEvent.KinesisEventRecord record : event.getRecords()) {
                if (failed.contains(record.getKinesis().getSequenceNumber())) {
                    break;
                }
                unretried.forEach(pending -> pending.remove(record.getEventID()));
            }
            int before = unretried.size();
            unretried.removeIf(java.util.Set::isEmpty);
            retried.addAndGet(before - unretried.size());
        }
    }

    /**
     * Plans crashes: the given invocations (1-based, counted across all shards) run the handler to
     * the end — every sink write done — and then fail as if the runtime died before returning the
     * response, so the event-source mapping sees a function error and delivers the batch again. An
     * invocation that fails by itself cannot crash after its writes; its crash moves to the next
     * one that succeeds.
     */
    public LocalFunction crashAfterWrites(java.util.Collection<Integer> invocationNumbers) {
        crashAfter.addAll(invocationNumbers);
        return this;
    }

    /**
     * The same batch handed to a second execution environment at the same moment: its handler runs
     * concurrently with this invocation's, on the same records; its response goes nowhere (the
     * event-source mapping acts on one). Returns when the twin has finished.
     */
    private java.util.concurrent.CompletableFuture<Void> invokeTwin(String eventJson, int records) {
        RequestHandler<KinesisEvent, StreamsEventResponse> other = twins.get();
        KinesisEvent copy = input.fromJson(new ByteArrayInputStream(eventJson.getBytes(StandardCharsets.UTF_8)));
        twinInvocations.incrementAndGet();
        twinRecords.addAndGet(records);
        LOG.warn(
                "function {}: the same batch of {} records delivered to a second invocation at once (injected)",
                name,
                records);
        return java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                other.handleRequest(copy, new LocalContext(name, timeout));
            } catch (RuntimeException e) {
                LOG.warn("function {}: the concurrent duplicate invocation failed: {}", name, e.toString());
            }
        });
    }

    /**
     * Plans concurrent duplicates: each of the given invocations (1-based) is delivered at the same
     * time to a second execution environment of the function, as when Lambda runs one batch twice.
     */
    public LocalFunction deliverTwiceAtOnce(java.util.Collection<Integer> invocationNumbers) {
        twinAt.addAll(invocationNumbers);
        return this;
    }

    /** Concurrent duplicate invocations that happened. */
    public int twinInvocations() {
        return twinInvocations.get();
    }

    /** Records handed to concurrent duplicate invocations. */
    public long twinRecords() {
        return twinRecords.get();
    }

    /** Planned crashes that happened. */
    public int crashes() {
        return crashes.get();
    }

    /** Invocations so far. */
    public int invocations() {
        return invocations.get();
    }

    /** The handler threw: the whole batch failed, as a Lambda function error. */
    public static final class FunctionError extends Exception {
        private static final long serialVersionUID = 1L;

        FunctionError(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The {@link Context} a local invocation sees. */
    private static final class LocalContext implements Context {
        private final String functionName;
        private final String requestId = UUID.randomUUID().toString();
        private final long deadline;

        LocalContext(String functionName, Duration timeout) {
            this.functionName = functionName;
            this.deadline = System.currentTimeMillis() + timeout.toMillis();
        }

        @Override
        public String getAwsRequestId() {
            return requestId;
        }

        @Override
        public String getLogGroupName() {
            return "/aws/lambda/" + functionName;
        }

        @Override
        public String getLogStreamName() {
            return "local";
        }

        @Override
        public String getFunctionName() {
            return functionName;
        }

        @Override
        public String getFunctionVersion() {
            return "$LATEST";
        }

        @Override
        public String getInvokedFunctionArn() {
            return "arn:aws:lambda:local:000000000000:function:" + functionName;
        }

        @Override
        public CognitoIdentity getIdentity() {
            return null;
        }

        @Override
        public ClientContext getClientContext() {
            return null;
        }

        @Override
        public int getRemainingTimeInMillis() {
            return (int) Math.max(0, deadline - System.currentTimeMillis());
        }

        @Override
        public int getMemoryLimitInMB() {
            return 1024;
        }

        @Override
        public LambdaLogger getLogger() {
            return new LambdaLogger() {
                @Override
                public void log(String message) {
                    LOG.info("[{}] {}", functionName, message);
                }

                @Override
                public void log(byte[] message) {
                    log(new String(message, StandardCharsets.UTF_8));
                }
            };
        }
    }
}
