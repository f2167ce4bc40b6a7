package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.handler.AwsStub;
import dev.sluice.bench.handler.HandWrittenHandler;
import dev.sluice.bench.handler.HandlerWorkload;
import dev.sluice.cli.coldstart.ColdStart;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.local.LocalDefinitions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./sluice bench coldstart}'s hand-written side: its deployment zip (load-tests/handler-baseline,
 * built by the reactor's package) started in a fresh JVM by Lambda's runtime interface client does
 * the batch's work against the AWS stub, and the command's RESULT line carries the comparison. Child
 * JVMs; nothing here asserts a duration.
 */
class ColdStartCommandIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private final ObjectMapper mapper = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void theHandWrittenZipStartsThroughTheRuntimeClientAndWritesEveryEffectOfTheBatch() throws Exception {
        PipelineDefinition pipeline = LocalDefinitions.loader(ROOT).load(ROOT.resolve("pipelines/payments.yaml"));
        Path taskRoot = ColdStart.unzip(ColdStartCommand.handWrittenZip(ROOT), dir.resolve("task"));
        ColdStart coldStart = new ColdStart(
                Path.of(System.getProperty("java.home"), "bin", "java"),
                ColdStart.runtimeClasspath(),
                dir.resolve("logs"));
        int events = 20;
        String event = ColdStartCommand.event(
                mapper, events, 1, ColdStartCommand.streamArn(pipeline.stage(ColdStartCommand.STAGE)));
        List<String> eventIds = eventIds(event);

        try (AwsStub stub = new AwsStub()) {
            Map<String, String> env = HandlerWorkload.environment(
                    "handwritten-",
                    pipeline,
                    ColdStartCommand.STAGE,
                    ROOT.resolve("pipelines/payments.yaml"),
                    stub.endpoint());
            HandlerWorkload.provision(stub, pipeline, pipeline.stage(ColdStartCommand.STAGE), List.of(env));
            ColdStart.Function function = new ColdStart.Function(
                    "handwritten-validate",
                    HandWrittenHandler.class.getName() + "::handleRequest",
                    taskRoot,
                    env,
                    1024);

            ColdStart.Sample sample = coldStart.run(function, event, "arn:aws:lambda:x", "handwritten-it");

            assertThat(mapper.readTree(sample.response()).path("batchItemFailures"))
                    .as("its response")
                    .isEmpty();
            // one state item per payment, keyed by its event id (payments-by-id's key)
            Map<String, ObjectNode> state = stub.items(env.get(EnvironmentNames.table("payments-by-id")));
            assertThat(state.values().stream().map(i -> i.path("pk").path("S").asText()))
                    .containsExactlyInAnyOrderElementsOf(eventIds);
            // Powertools' idempotency record for each, before its state write
            assertThat(stub.items(env.get(HandWrittenHandler.IDEMPOTENCY_TABLE)).values().stream()
                            .map(i -> i.path("id").path("S").asText()))
                    .containsExactlyInAnyOrderElementsOf(eventIds.stream()
                            .map(id -> "payments.validate#" + id)
                            .toList());
            // one lake object for the batch, under the lake's prefix
            assertThat(stub.objects(env.get(EnvironmentNames.LAKE_BUCKET)).keySet())
                    .singleElement()
                    .satisfies(key -> assertThat(key).startsWith("payments/dt="));
            // the hourly spend per currency counts every payment once
            long counted = stub.items(env.get(EnvironmentNames.table("spend-per-currency-hourly"))).values().stream()
                    .mapToLong(i -> Long.parseLong(i.path("count").path("N").asText()))
                    .sum();
            assertThat(counted).isEqualTo(events);
            assertThat(sample.classesLoaded()).isPositive();
        }
    }

    @Test
    void theResultLineComparesSluiceWithTheHandWrittenHandler() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SluiceCli cli = new SluiceCli(
                ROOT,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int status = cli.run(List.of("bench", "--runs", "1", "--events", "10"));

        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        String result = lines.get(lines.size() - 1);
        assertThat(result).startsWith("RESULT ");
        Map<String, String> values = new LinkedHashMap<>();
        Arrays.stream(result.substring("RESULT ".length()).split(" "))
                .map(pair -> pair.split("=", 2))
                .forEach(pair -> values.put(pair[0], pair[1]));
        assertThat(values)
                .containsKeys(
                        "init_ms_p50",
                        "first_batch_ms_p50",
                        "minimal_init_ms_p50",
                        "ratio",
                        "zip_bytes",
                        "runs",
                        "ratio_init",
                        "ratio_first_batch",
                        "zip_ratio",
                        "naive_init_ms",
                        "naive_first_batch_ms",
                        "naive_zip_bytes");
        for (String key : List.of("ratio_init", "ratio_first_batch", "zip_ratio", "naive_init_ms")) {
            assertThat(Double.parseDouble(values.get(key))).as(key).isPositive();
        }
        assertThat(Long.parseLong(values.get("naive_zip_bytes")))
                .isEqualTo(Files.size(ColdStartCommand.handWrittenZip(ROOT)));
        assertThat(Long.parseLong(values.get("zip_bytes"))).isEqualTo(Files.size(ColdStartCommand.lambdaZip(ROOT)));
        assertThat(values.get("runs")).isEqualTo("1");
    }

    private List<String> eventIds(String event) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode record : mapper.readTree(event).path("Records")) {
            byte[] data = java.util.Base64.getDecoder()
                    .decode(record.path("kinesis").path("data").asText());
            ids.add(mapper.readTree(data).path("eventId").asText());
        }
        assertThat(new TreeSet<>(ids)).as("distinct event ids").hasSize(ids.size());
        return ids.stream().collect(Collectors.toList());
    }
}
