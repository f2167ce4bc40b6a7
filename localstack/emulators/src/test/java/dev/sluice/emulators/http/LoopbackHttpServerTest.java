package dev.sluice.emulators.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A local front keeps every idle keep-alive connection a client holds, as an AWS endpoint does:
 * more than the JDK server's default 200 of them, each answering its next request. The JDK reads
 * its limit once, when the JVM's first server is made; the build's test JVMs get it from the
 * surefire and failsafe configuration, the launcher's JVM from {@link LoopbackHttpServer}, whose
 * servers are the first it makes. With the JDK's default this answers 200 of 260.
 */
class LoopbackHttpServerTest {

    private static final int CONNECTIONS = LoopbackHttpServer.JDK_DEFAULT_IDLE_CONNECTIONS + 60;

    @Test
    void moreThanTwoHundredIdleKeepAliveConnectionsEachAnswerTheirNextRequest() throws Exception {
        HttpServer server = LoopbackHttpServer.bind(CONNECTIONS);
        server.createContext("/", exchange -> {
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket socket = new Socket("127.0.0.1", server.getAddress().getPort());
                socket.setSoTimeout(10_000);
                sockets.add(socket);
                assertThat(exchange(socket))
                        .as("first answer on connection %d", i)
                        .startsWith("HTTP/1.1 200");
            }
            // every connection is idle now; each must still carry its next request
            int answered = 0;
            for (Socket socket : sockets) {
                if (exchange(socket).startsWith("HTTP/1.1 200")) {
                    answered++;
                }
            }
            assertThat(answered).isEqualTo(CONNECTIONS);
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
            server.stop(0);
        }
    }

    /** Sends one keep-alive GET and reads its answer (status line and headers, then the 2-byte body); "" at EOF. */
    private static String exchange(Socket socket) throws IOException {
        socket.getOutputStream()
                .write("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            String text = head.toString(StandardCharsets.US_ASCII);
            if (text.endsWith("\r\n\r\n")) {
                in.readNBytes(2);
                return text;
            }
        }
        return "";
    }
}
