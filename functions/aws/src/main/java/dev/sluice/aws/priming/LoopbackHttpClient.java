package dev.sluice.aws.priming;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An HTTP client that never opens a connection: it reads each request's body (so the SDK marshals,
 * signs and streams it in full) and answers {@code 200 {}} itself. The priming clients use it, so
 * that warming the SDK's marshallers calls no AWS endpoint and needs no credentials.
 */
public final class LoopbackHttpClient implements SdkHttpClient {

    private static final byte[] EMPTY_JSON = "{}".getBytes(StandardCharsets.UTF_8);

    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger bodyBytes = new AtomicInteger();

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        requests.incrementAndGet();
        request.contentStreamProvider().ifPresent(body -> {
            try (InputStream in = body.newStream()) {
                bodyBytes.addAndGet(in.readAllBytes().length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() {
                return HttpExecuteResponse.builder()
                        .response(SdkHttpResponse.builder()
                                .statusCode(200)
                                .putHeader("Content-Type", "application/x-amz-json-1.0")
                                .putHeader("Content-Length", Integer.toString(EMPTY_JSON.length))
                                .putHeader("ETag", "\"priming\"")
                                .putHeader("x-amzn-RequestId", "priming")
                                .build())
                        .responseBody(AbortableInputStream.create(new ByteArrayInputStream(EMPTY_JSON)))
                        .build();
            }

            @Override
            public void abort() {}
        };
    }

    /** Requests the SDK handed to this client (each would have been one AWS call). */
    public int requests() {
        return requests.get();
    }

    /** Bytes of request bodies the SDK marshalled. */
    public int bodyBytes() {
        return bodyBytes.get();
    }

    @Override
    public String clientName() {
        return "SluicePrimingLoopback";
    }

    @Override
    public void close() {}
}
