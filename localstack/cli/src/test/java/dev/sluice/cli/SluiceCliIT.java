package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code ./sluice invoke} on a fresh local stack, like {@code sam local invoke}. */
class SluiceCliIT {

    @Test
    void invokeRunsTheStageHandlerOnALambdaEventFileAndPrintsItsResponse() throws Exception {
        Path root = Path.of(System.getProperty("sluice.root"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SluiceCli cli = new SluiceCli(
                root,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int status = cli.run(List.of(
                "invoke",
                "--pipeline",
                "payments",
                "--event",
                root.resolve("functions/lambda/src/test/resources/kinesis-event-payments.json")
                        .toString()));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode response = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
        // the fixture holds one valid payment and two bad records: the bad ones are dead lettered,
        // so nothing is reported as failed
        assertThat(response.path("batchItemFailures").isArray()).isTrue();
        assertThat(response.path("batchItemFailures")).isEmpty();
    }
}
