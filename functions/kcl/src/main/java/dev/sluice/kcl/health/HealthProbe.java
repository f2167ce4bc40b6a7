package dev.sluice.kcl.health;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.util.Map;

/**
 * The worker image's health check command (the image's {@code HEALTHCHECK} and the ECS container
 * health check): the image has no shell and no curl, so this class, run by the image's own JVM,
 * asks the worker's health endpoint and exits {@code 0} when it answers 2xx, {@code 1} otherwise
 * (one line on stderr says why). JDK classes only: it runs from {@code /opt/sluice/health} without
 * the application's class path.
 *
 * <p>Usage: {@code java -cp /opt/sluice/health dev.sluice.kcl.health.HealthProbe [PATH]}; {@code
 * PATH} defaults to {@value #DEFAULT_PATH}. The port is the worker's: {@code QUARKUS_HTTP_PORT},
 * else {@code SLUICE_KCL_HTTP_PORT}, else {@value #DEFAULT_PORT}.
 */
public final class HealthProbe {

    /** The endpoint asked when no path is given: liveness (an orchestrator restarts what is not live). */
    public static final String DEFAULT_PATH = "/q/health/live";

    /** The worker's HTTP port when neither variable sets it ({@code quarkus.http.port}'s default). */
    public static final int DEFAULT_PORT = 8080;

    /** Connect and read timeout, in milliseconds: well inside the health check's own timeout. */
    static final int TIMEOUT_MS = 5_000;

    private HealthProbe() {}

    public static void main(String[] args) {
        System.exit(probe(args.length > 0 ? args[0] : DEFAULT_PATH, System.getenv(), System.err));
    }

    /**
     * Asks {@code http://127.0.0.1:<port><path>} once.
     *
     * @return {@code 0} when the answer is 2xx, else {@code 1} (and one line on {@code err})
     */
    static int probe(String path, Map<String, String> environment, PrintStream err) {
        String port = environment.getOrDefault(
                "QUARKUS_HTTP_PORT", environment.getOrDefault("SLUICE_KCL_HTTP_PORT", String.valueOf(DEFAULT_PORT)));
        String url = "http://127.0.0.1:" + port.trim() + path;
        try {
            HttpURLConnection connection =
                    (HttpURLConnection) URI.create(url).toURL().openConnection();
            connection.setConnectTimeout(TIMEOUT_MS);
            connection.setReadTimeout(TIMEOUT_MS);
            int status = connection.getResponseCode();
            try (InputStream ignored = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                // drain nothing: the status is the answer
            }
            if (status / 100 == 2) {
                return 0;
            }
            err.println("health probe: " + url + " answered " + status);
            return 1;
        } catch (IOException | IllegalArgumentException e) {
            err.println("health probe: " + url + " did not answer: " + e);
            return 1;
        }
    }
}
