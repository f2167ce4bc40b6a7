package dev.sluice.cli.coldstart;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The Lambda Runtime API ({@code 2018-06-01}) for one function instance and one invocation, as the
 * runtime interface client reads it from {@code AWS_LAMBDA_RUNTIME_API}: the first {@code GET
 * /runtime/invocation/next} (the client asks for work once the handler is initialised) is answered
 * with the event; later ones wait until {@link #close}. The client's response, or its init or
 * invocation error, completes {@link #result}. The clock ({@code System.nanoTime} by default) stamps
 * the first {@code next} ({@link #initialisedAt}) and the response ({@link #respondedAt}).
 */
public final class LocalRuntimeApi implements AutoCloseable {

    /** The request id of the one invocation. */
    public static final String REQUEST_ID = "00000000-0000-4000-8000-000000000001";

    private static final String PREFIX = "/2018-06-01/runtime/";

    private final HttpServer server;
    private final byte[] event;
    private final String functionArn;
    private final LongSupplier clock;
    private final AtomicBoolean served = new AtomicBoolean();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private volatile long initialisedAt;
    private volatile long respondedAt;

    /** The outcome the client reported. */
    public static final class FunctionFailure extends dev.sluice.core.SluiceException {
        private static final long serialVersionUID = 1L;

        FunctionFailure(String message) {
            super(message);
        }
    }

    public LocalRuntimeApi(String eventJson, String functionArn, LongSupplier clock) throws IOException {
        this.event = eventJson.getBytes(StandardCharsets.UTF_8);
        this.functionArn = functionArn;
        this.clock = clock;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "runtime-api");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext(PREFIX, this::handle);
        server.start();
    }

    /** {@code host:port}, the value of {@code AWS_LAMBDA_RUNTIME_API}. */
    public String address() {
        return server.getAddress().getHostString() + ":" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath().substring(PREFIX.length());
        String method = exchange.getRequestMethod();
        try (exchange) {
            if (method.equals("GET") && path.equals("invocation/next")) {
                next(exchange);
            } else if (method.equals("POST") && path.equals("invocation/" + REQUEST_ID + "/response")) {
                byte[] body = read(exchange.getRequestBody());
                respondedAt = clock.getAsLong();
                reply(exchange, 202, "{\"status\":\"OK\"}");
                result.complete(new String(body, StandardCharsets.UTF_8));
            } else if (method.equals("POST")
                    && (path.equals("init/error") || path.equals("invocation/" + REQUEST_ID + "/error"))) {
                String body = new String(read(exchange.getRequestBody()), StandardCharsets.UTF_8);
                reply(exchange, 202, "{\"status\":\"OK\"}");
                result.completeExceptionally(
                        new FunctionFailure((path.startsWith("init") ? "init error: " : "invocation error: ") + body));
            } else {
                reply(exchange, 404, "{\"errorMessage\":\"no " + method + " " + path + " here\"}");
            }
        }
    }

    private void next(HttpExchange exchange) throws IOException {
        if (!served.compareAndSet(false, true)) {
            // one invocation per instance: the client waits here, as it would for work that never comes
            try {
                closing.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            reply(exchange, 410, "{\"errorMessage\":\"the bench served its one invocation\"}");
            return;
        }
        initialisedAt = clock.getAsLong();
        exchange.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", REQUEST_ID);
        exchange.getResponseHeaders()
                .add("Lambda-Runtime-Deadline-Ms", Long.toString(System.currentTimeMillis() + 300_000));
        exchange.getResponseHeaders().add("Lambda-Runtime-Invoked-Function-Arn", functionArn);
        exchange.getResponseHeaders().add("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000001");
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, event.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(event);
        }
    }

    private static byte[] read(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /**
     * The function's response JSON, once it answered.
     *
     * @throws FunctionFailure if it reported an init or invocation error
     * @throws TimeoutException if it did not answer in time
     */
    public String result(Duration timeout) throws TimeoutException, InterruptedException {
        try {
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof FunctionFailure f
                    ? f
                    : new FunctionFailure(e.getCause().toString());
        }
    }

    /** Whether the invocation was handed out (the handler initialised and asked for work). */
    public boolean served() {
        return served.get();
    }

    /** Clock reading when the client first asked for work: its handler was initialised. */
    public long initialisedAt() {
        return initialisedAt;
    }

    /** Clock reading when the response arrived. */
    public long respondedAt() {
        return respondedAt;
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
