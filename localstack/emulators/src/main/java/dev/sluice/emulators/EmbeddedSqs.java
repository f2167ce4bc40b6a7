package dev.sluice.emulators;

import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** ElasticMQ embedded in this JVM on a loopback port. */
final class EmbeddedSqs implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSqs.class);

    private final SQSRestServer server;
    private final int port;

    private EmbeddedSqs(SQSRestServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts ElasticMQ on a loopback port chosen by the operating system, with ARNs in the given
     * region and account. Queue URLs carry the real port: {@code
     * http://127.0.0.1:<port>/<account>/<queue>}.
     */
    static EmbeddedSqs start(String region, String accountId) {
        return start(region, accountId, -1);
    }

    /**
     * Like {@link #start(String, String)}, with queue URLs naming {@code advertisedPort} (the access
     * gate in front of ElasticMQ) instead of its own port, when it is not negative.
     */
    static EmbeddedSqs start(String region, String accountId, int advertisedPort) {
        SQSRestServer server;
        try {
            var builder = SQSRestServerBuilder.withInterface("127.0.0.1")
                    .withPort(0)
                    .withAWSRegion(region)
                    .withAWSAccountId(accountId);
            if (advertisedPort >= 0) {
                builder = builder.withServerAddress(
                        org.elasticmq.NodeAddress.apply("http", "127.0.0.1", advertisedPort, ""));
            }
            server = builder.start();
        } catch (RuntimeException e) {
            throw new LocalAwsException("ElasticMQ did not start: " + e, e);
        }
        try {
            int bound = server.waitUntilStarted().localAddress().getPort();
            LOG.debug("ElasticMQ listening on 127.0.0.1:{}", bound);
            return new EmbeddedSqs(server, bound);
        } catch (RuntimeException e) {
            stopQuietly(server);
            throw new LocalAwsException("ElasticMQ did not start: " + e, e);
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        stopQuietly(server);
    }

    private static void stopQuietly(SQSRestServer server) {
        try {
            server.stopAndWait();
        } catch (RuntimeException e) {
            LOG.warn("stopping ElasticMQ failed", e);
        }
    }
}
