package dev.sluice.emulators;

import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** s3proxy with a transient (in-memory) blob store, embedded in this JVM on a loopback port. */
final class EmbeddedS3 implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedS3.class);

    private final S3Proxy proxy;
    private final BlobStore blobStore;
    private final int port;

    private EmbeddedS3(S3Proxy proxy, BlobStore blobStore, int port) {
        this.proxy = proxy;
        this.blobStore = blobStore;
        this.port = port;
    }

    /**
     * Starts s3proxy on a loopback port chosen by the operating system, requiring AWS signature V2
     * or V4 with the given credentials.
     */
    static EmbeddedS3 start(String accessKeyId, String secretAccessKey) {
        return start(accessKeyId, secretAccessKey, true);
    }

    /**
     * Like {@link #start(String, String)}; without {@code authenticate} s3proxy checks no signature
     * (the access gate in front of it knows every principal's key and does).
     */
    static EmbeddedS3 start(String accessKeyId, String secretAccessKey, boolean authenticate) {
        // listings as S3 gives them: never a PUT still in flight (see CommittedListingBlobStore)
        BlobStore blobStore = new CommittedListingBlobStore(BlobStores.create("transient", new Properties()));
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(blobStore)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(
                        authenticate ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
                        accessKeyId,
                        secretAccessKey)
                // no graceful stop (30 s by default): the store is in memory and goes away anyway
                .stopTimeout(0)
                .build();
        try {
            proxy.start();
        } catch (Exception e) {
            stopQuietly(proxy, blobStore);
            throw new LocalAwsException("s3proxy did not start: " + e, e);
        }
        int port = proxy.getPort();
        LOG.debug("s3proxy listening on 127.0.0.1:{}", port);
        return new EmbeddedS3(proxy, blobStore, port);
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        stopQuietly(proxy, blobStore);
    }

    private static void stopQuietly(S3Proxy proxy, BlobStore blobStore) {
        try {
            proxy.stop();
        } catch (Exception e) {
            LOG.warn("stopping s3proxy failed", e);
        }
        try {
            blobStore.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the s3proxy blob store failed", e);
        }
    }
}
