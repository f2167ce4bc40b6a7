package dev.sluice.kcl.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The image's health check command against a stand-in for the worker's health endpoints. */
class HealthProbeTest {

    private HttpServer server;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/q/health/live", exchange -> {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/q/health/ready", exchange -> {
            byte[] body = "{\"status\":\"DOWN\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(503, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private Map<String, String> port() {
        return Map.of("SLUICE_KCL_HTTP_PORT", String.valueOf(server.getAddress().getPort()));
    }

    private int probe(String path, Map<String, String> environment) {
        return HealthProbe.probe(path, environment, new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void liveWorkerIsHealthy() {
        assertThat(probe(HealthProbe.DEFAULT_PATH, port())).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void endpointAnsweringDownIsUnhealthyWithOneLineSayingSo() {
        assertThat(probe("/q/health/ready", port())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("health probe: http://127.0.0.1:"
                        + server.getAddress().getPort() + "/q/health/ready answered 503")
                .doesNotContain("\n");
    }

    @Test
    void quarkusHttpPortWinsOverSluicesVariable() {
        Map<String, String> environment =
                Map.of("QUARKUS_HTTP_PORT", String.valueOf(server.getAddress().getPort()), "SLUICE_KCL_HTTP_PORT", "1");
        assertThat(probe(HealthProbe.DEFAULT_PATH, environment)).isZero();
    }

    @Test
    void workerNotListeningIsUnhealthy() throws IOException {
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        assertThat(probe(HealthProbe.DEFAULT_PATH, Map.of("SLUICE_KCL_HTTP_PORT", String.valueOf(closed))))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("health probe: http://127.0.0.1:" + closed);
    }
}
