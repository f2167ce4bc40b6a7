package dev.sluice.cli.coldstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bench's Runtime API, spoken to as the runtime interface client speaks to it. */
class LocalRuntimeApiTest {

    private static final String EVENT = "{\"Records\":[]}";
    private static final String ARN = "arn:aws:lambda:us-east-1:000000000000:function:payments-validate:live";

    private final HttpClient http = HttpClient.newHttpClient();
    private final AtomicLong clock = new AtomicLong();

    private HttpResponse<String> get(LocalRuntimeApi api, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://" + api.address() + "/2018-06-01/runtime/" + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(LocalRuntimeApi api, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://" + api.address() + "/2018-06-01/runtime/" + path))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesOneInvocationAndCollectsItsResponseStampingBoth() throws Exception {
        try (LocalRuntimeApi api = new LocalRuntimeApi(EVENT, ARN, clock::incrementAndGet)) {
            assertThat(api.served()).isFalse();

            HttpResponse<String> next = get(api, "invocation/next");

            assertThat(next.statusCode()).isEqualTo(200);
            assertThat(next.body()).isEqualTo(EVENT);
            assertThat(next.headers().firstValue("Lambda-Runtime-Aws-Request-Id"))
                    .hasValue(LocalRuntimeApi.REQUEST_ID);
            assertThat(next.headers().firstValue("Lambda-Runtime-Invoked-Function-Arn"))
                    .hasValue(ARN);
            assertThat(next.headers().firstValue("Lambda-Runtime-Deadline-Ms")).isPresent();
            assertThat(api.served()).isTrue();
            assertThat(api.initialisedAt()).isEqualTo(1);

            HttpResponse<String> accepted =
                    post(api, "invocation/" + LocalRuntimeApi.REQUEST_ID + "/response", "{\"batchItemFailures\":[]}");

            assertThat(accepted.statusCode()).isEqualTo(202);
            assertThat(api.result(Duration.ofSeconds(10))).isEqualTo("{\"batchItemFailures\":[]}");
            assertThat(api.respondedAt()).isEqualTo(2);
        }
    }

    @Test
    void anInitErrorFailsTheRunWithTheClientsReport() throws Exception {
        try (LocalRuntimeApi api = new LocalRuntimeApi(EVENT, ARN, clock::incrementAndGet)) {
            post(api, "init/error", "{\"errorMessage\":\"AWS_REGION is not set\"}");

            assertThatThrownBy(() -> api.result(Duration.ofSeconds(10)))
                    .isInstanceOf(LocalRuntimeApi.FunctionFailure.class)
                    .hasMessageContaining("init error")
                    .hasMessageContaining("AWS_REGION is not set");
            assertThat(api.served()).isFalse();
        }
    }

    @Test
    void anUnknownPathIsRefused() throws Exception {
        try (LocalRuntimeApi api = new LocalRuntimeApi(EVENT, ARN, clock::incrementAndGet)) {
            assertThat(post(api, "invocation/some-other-id/response", "{}").statusCode())
                    .isEqualTo(404);
        }
    }
}
