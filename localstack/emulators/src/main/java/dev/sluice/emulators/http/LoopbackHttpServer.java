package dev.sluice.emulators.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The JDK's HTTP server on a free loopback port, as the local stack's fronts use it (the access
 * gates, the Secrets Manager front).
 *
 * <p>The JDK server keeps at most {@value #JDK_DEFAULT_IDLE_CONNECTIONS} idle keep-alive
 * connections by default ({@code sun.net.httpserver.maxIdleConnections}) and closes every further
 * one as soon as its response is written. An AWS endpoint sets no such limit for a client, and the
 * SDK keeps each connection it opened in its pool: once a test run or a demo has more than 200
 * pooled connections to one gate (a few pipelines' functions with 24 writers each), every later
 * call lands on a connection the gate already closed and fails with "The target server failed to
 * respond" on all of the SDK's attempts — a failure AWS would never cause. So the limit is raised
 * to {@value #IDLE_CONNECTIONS} before the JDK reads it (once, when its first server is made),
 * unless the property is set already. That holds only when this is the JVM's first server: the
 * build sets the property for every test JVM (root pom, surefire and failsafe), and in the
 * launcher's JVM the local stack's fronts are the first servers made.
 */
public final class LoopbackHttpServer {

    static final int JDK_DEFAULT_IDLE_CONNECTIONS = 200;
    static final int IDLE_CONNECTIONS = 20_000;
    static final String IDLE_CONNECTIONS_PROPERTY = "sun.net.httpserver.maxIdleConnections";

    static {
        if (System.getProperty(IDLE_CONNECTIONS_PROPERTY) == null) {
            System.setProperty(IDLE_CONNECTIONS_PROPERTY, Integer.toString(IDLE_CONNECTIONS));
        }
    }

    private LoopbackHttpServer() {}

    /** An unstarted server bound to 127.0.0.1 on a free port. */
    public static HttpServer bind(int backlog) throws IOException {
        return HttpServer.create(new InetSocketAddress("127.0.0.1", 0), backlog);
    }
}
