package dev.sluice.local.kcl;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * One local KCL worker: a separate JVM running the packaged KCL app ({@code quarkus-run.jar}) with
 * the stage's environment. {@link #kill()} is a real SIGKILL, {@link #stop(Duration)} a SIGTERM (KCL's
 * graceful shutdown).
 */
public final class LocalKclWorker {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String workerId;
    private final Process process;
    /** Quarkus's HTTP port; 0 until the worker's log says which port it bound. */
    private volatile int httpPort;

    private final Path log;
    private final String accessKeyId;
    private final Instant startedAt;
    private volatile Instant endedAt;

    /**
     * @param httpPort the worker's HTTP port, or 0 when Quarkus picks one (it binds an ephemeral port
     *     and logs it: {@link #port()} reads it from {@code log})
     */
    LocalKclWorker(String workerId, Process process, int httpPort, Path log, String accessKeyId) {
        this.workerId = workerId;
        this.accessKeyId = accessKeyId;
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
        this.startedAt = Instant.now();
    }

    public String workerId() {
        return workerId;
    }

    /** The access key id this worker signs with (its own session key of the stage's task role when IAM is enforced). */
    public String accessKeyId() {
        return accessKeyId;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public Instant startedAt() {
        return startedAt;
    }

    /** When the worker was killed or stopped, or {@code null} while it runs. */
    public Instant endedAt() {
        return endedAt;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no final checkpoint, leases left to expire. */
    public void kill() {
        endedAt = Instant.now();
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * SIGTERM: KCL's graceful shutdown (final checkpoints, leases released); SIGKILL if it takes longer
     * than {@code timeout}.
     *
     * @return whether it exited within the timeout
     */
    public boolean stop(Duration timeout) {
        if (endedAt == null) {
            endedAt = Instant.now();
        }
        process.destroy();
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        return false;
    }

    /** Whether {@code /q/health/ready} says the KCL scheduler is initialised. */
    public boolean ready() {
        return get("/q/health/ready").map(r -> r.statusCode() == 200).orElse(false);
    }

    /** Whether {@code /q/health/live} says the KCL scheduler's loop runs. */
    public boolean live() {
        return get("/q/health/live").map(r -> r.statusCode() == 200).orElse(false);
    }

    /** {@code GET /leases}: the leases the worker holds, as JSON, or empty if it does not answer. */
    public java.util.Optional<String> leases() {
        return get("/leases").filter(r -> r.statusCode() == 200).map(HttpResponse::body);
    }

    /**
     * How many leases the worker itself says it holds ({@code /leases}; 0 if it does not answer). The
     * lease table names the new owner as soon as the leader assigns a lease; the worker holds it
     * only once the previous owner handed it over.
     */
    public int leasesHeld() {
        return leases().map(json -> {
                    try {
                        return new com.fasterxml.jackson.databind.ObjectMapper()
                                .readTree(json)
                                .path("leases")
                                .size();
                    } catch (IOException e) {
                        return 0;
                    }
                })
                .orElse(0);
    }

    private static final java.util.regex.Pattern LISTENING =
            java.util.regex.Pattern.compile("Listening on: http://[^:/\\s]+:([0-9]+)");

    /**
     * The worker's HTTP port: the one it was given, or the one Quarkus's start line in its log names
     * ({@code Listening on: http://127.0.0.1:PORT}); empty until it has started listening.
     */
    public java.util.OptionalInt port() {
        if (httpPort == 0) {
            httpPort = listeningPort(log);
        }
        return httpPort == 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(httpPort);
    }

    /** The port of the last Quarkus start line in a worker's log, or 0 if there is none yet. */
    static int listeningPort(Path log) {
        try {
            java.util.regex.Matcher m = LISTENING.matcher(java.nio.file.Files.readString(log));
            int port = 0;
            while (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
            return port;
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    private java.util.Optional<HttpResponse<String>> get(String path) {
        java.util.OptionalInt port = port();
        if (!process.isAlive() || port.isEmpty()) {
            return java.util.Optional.empty();
        }
        try {
            return java.util.Optional.of(HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + path))
                            .timeout(Duration.ofSeconds(3))
                            .build(),
                    HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return java.util.Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java.util.Optional.empty();
        }
    }

    @Override
    public String toString() {
        return workerId + " (pid " + process.pid() + ", port " + (httpPort == 0 ? "not yet known" : httpPort) + ")";
    }
}
