package dev.sluice.bench.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.sink.SqsDeadLetterSink;
import dev.sluice.bench.Workload;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.lambda.KinesisStageHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The handler benchmark end to end on one batch of the payments stage (no timing asserted): the
 * call graph is what Sluice's handler does — the de-duplicating table first, one PutObject for the
 * batch between its two ledger writes, the aggregates beside it, the dead letters last — and the
 * hand-written handler writes the same items, lake lines, aggregates and dead letters.
 */
class HandlerBenchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path PIPELINE = Path.of(
                    System.getProperty("sluice.root", "../.."), "pipelines", "payments.yaml")
            .toAbsolutePath();

    private static AwsStub stub;
    private static PipelineDefinition definition;
    private static HandlerWorkload.Batches batches;
    private static Map<String, String> sluiceEnv;
    private static Map<String, String> naiveEnv;
    private static KinesisStageHandler sluice;
    private static HandWrittenHandler naive;

    @BeforeAll
    static void wire() {
        System.setProperty("sluice.root", PIPELINE.getParent().getParent().toString());
        stub = new AwsStub();
        definition = new DefinitionLoader(Workload.schemas(StageRuntime.mapper())).load(PIPELINE);
        batches = HandlerWorkload.events(definition, definition.stage("validate"), 3);
        sluiceEnv = HandlerWorkload.environment("sluice-", definition, "validate", PIPELINE, stub.endpoint());
        naiveEnv = HandlerWorkload.environment("handwritten-", definition, "validate", PIPELINE, stub.endpoint());
        HandlerWorkload.provision(stub, definition.stage("validate"), List.of(sluiceEnv, naiveEnv));
        sluice = new KinesisStageHandler(StageRuntime.fromEnvironment(sluiceEnv), sluiceEnv);
        naive = new HandWrittenHandler(naiveEnv);
    }

    @AfterAll
    static void stop() {
        stub.close();
    }

    private static CallGraph graph(
            String name,
            com.amazonaws.services.lambda.runtime.RequestHandler<KinesisEvent, StreamsEventResponse> handler,
            int batch) {
        stub.latency(HandlerBench.GRAPH_LATENCY_MILLIS);
        try {
            CallRecorder.start();
            StreamsEventResponse response =
                    handler.handleRequest(batches.events().get(batch), null);
            List<CallRecorder.Call> calls = CallRecorder.stop();
            assertThat(response.getBatchItemFailures()).isEmpty();
            int records = batches.events().get(batch).getRecords().size();
            int invalid = batches.invalid()[batch];
            return CallGraph.of(name, records, records - invalid, invalid, HandlerBench.GRAPH_LATENCY_MILLIS, calls);
        } finally {
            stub.latency(0);
        }
    }

    @Test
    void sluicesBatchIsTheGateThenOnePutObjectBetweenItsLedgerWritesBesideTheAggregatesThenTheDeadLetters() {
        int batch = batches.firstWithInvalid();
        stub.reset(r -> r.contains("sluice-"));
        CallGraph g = graph("sluice", sluice, batch);
        int accepted = g.accepted();
        Map<String, Integer> totals = g.totals();

        assertThat(totals.get("DYNAMODB PutItem")).isEqualTo(accepted);
        assertThat(totals.get("S3 PutObject")).isEqualTo(1);
        assertThat(totals.get("SQS SendMessageBatch")).isEqualTo(1);
        // the ledger: an intent before the object, the commit after it
        List<CallGraph.Call> ledger = g.calls().stream()
                .filter(c -> c.resource().equals("sluice-payments-lake-ledger"))
                .toList();
        assertThat(ledger).extracting(CallGraph.Call::operation).containsExactly("UpdateItem", "UpdateItem");
        CallGraph.Call put = g.calls().stream()
                .filter(c -> c.operation().equals("PutObject"))
                .findFirst()
                .orElseThrow();
        assertThat(ledger.get(0).endMicros()).isLessThanOrEqualTo(put.startMicros());
        assertThat(ledger.get(1).startMicros()).isGreaterThanOrEqualTo(put.endMicros());
        // the aggregates: a read and a conditional write per (currency, hour)
        long aggregateReads = g.calls().stream()
                .filter(c -> c.resource().equals("sluice-spend-per-currency-hourly"))
                .filter(c -> c.operation().equals("GetItem"))
                .count();
        assertThat(aggregateReads).isPositive();
        assertThat(totals.get("DYNAMODB UpdateItem")).isEqualTo(2 + (int) aggregateReads);

        // first the de-duplicating table alone, written concurrently; every other sink waits for it
        List<CallGraph.Call> gate = g.calls().stream()
                .filter(c -> c.resource().equals("sluice-payments-by-id"))
                .toList();
        long gateEnds = gate.stream().mapToLong(CallGraph.Call::endMicros).max().orElseThrow();
        assertThat(g.calls())
                .filteredOn(c -> !gate.contains(c))
                .allSatisfy(c -> assertThat(c.startMicros()).isGreaterThanOrEqualTo(gateEnds));
        assertThat(gate.stream().map(CallGraph.Call::thread).distinct().count()).isGreaterThan(1);
        assertThat(g.phases().get(0).calls()).containsOnlyKeys("DYNAMODB PutItem");
        assertThat(g.phases().get(0).maxConcurrent()).isGreaterThan(1);
        // the lake on one thread, the aggregates on others (concurrently, once warm: the bench records
        // its graphs after the warm-up; cold, the lake's CPU between its calls may outlast them)
        assertThat(ledger.get(0).thread())
                .isEqualTo(put.thread())
                .isEqualTo(ledger.get(1).thread());
        assertThat(g.calls())
                .filteredOn(c -> c.resource().equals("sluice-spend-per-currency-hourly"))
                .allSatisfy(c -> assertThat(c.thread()).isNotEqualTo(put.thread()));
        // last, once everything else is durable, the dead letters
        CallGraph.Call letters = g.calls().get(g.calls().size() - 1);
        assertThat(letters.operation()).isEqualTo("SendMessageBatch");
        assertThat(g.calls())
                .filteredOn(c -> c != letters)
                .allSatisfy(c -> assertThat(c.endMicros()).isLessThanOrEqualTo(letters.startMicros()));
        assertThat(g.phases().get(g.phases().size() - 1).calls()).containsOnlyKeys("SQS SendMessageBatch");
    }

    @Test
    void theHandWrittenHandlerWritesTwiceARecordOneObjectABatchAndTheSameEffectsAsSluice() throws IOException {
        int batch = batches.firstWithInvalid();
        stub.reset(r -> r.contains("sluice-") || r.contains("handwritten-"));
        CallGraph s = graph("sluice", sluice, batch);
        CallGraph n = graph("hand-written", naive, batch);

        Map<String, Integer> totals = n.totals();
        assertThat(totals.get("DYNAMODB PutItem")).isEqualTo(2 * n.accepted());
        assertThat(totals.get("S3 PutObject")).isEqualTo(1);
        assertThat(totals.get("SQS SendMessageBatch")).isEqualTo(1);
        assertThat(n.phases()).allSatisfy(p -> assertThat(p.maxConcurrent()).isEqualTo(1));
        assertThat(s.accepted()).isEqualTo(n.accepted());

        assertThat(stateItems("handwritten-")).isEqualTo(stateItems("sluice-")).isNotEmpty();
        assertThat(lakeLines("handwritten-")).isEqualTo(lakeLines("sluice-")).hasSize(n.accepted());
        assertThat(aggregates("handwritten-")).isEqualTo(aggregates("sluice-")).isNotEmpty();
        assertThat(deadLetters(naiveEnv)).isEqualTo(deadLetters(sluiceEnv)).hasSize(n.deadLettered());
    }

    @Test
    void aReplayedBatchIsAbsorbedByBoth() {
        stub.reset(r -> r.contains("sluice-") || r.contains("handwritten-"));
        for (var handler : List.of(sluice, naive)) {
            handler.handleRequest(batches.events().get(0), null);
        }
        Map<String, Long> before = stub.requests();
        Map<String, JsonNode> sluiceItems = stateItems("sluice-");
        Map<String, JsonNode> naiveAggregates = aggregates("handwritten-");
        assertThat(sluice.handleRequest(batches.events().get(0), null).getBatchItemFailures())
                .isEmpty();
        assertThat(naive.handleRequest(batches.events().get(0), null).getBatchItemFailures())
                .isEmpty();

        assertThat(stateItems("sluice-")).isEqualTo(sluiceItems);
        assertThat(aggregates("sluice-")).isEqualTo(aggregates("handwritten-")).isEqualTo(naiveAggregates);
        assertThat(lakeLines("sluice-")).hasSize(lakeLines("handwritten-").size());
        assertThat(stub.requests().get("DYNAMODB PutItem")).isGreaterThan(before.get("DYNAMODB PutItem"));
    }

    @Test
    void aTinyRunMeasuresBothHandlersAndCountsTheirRequests() {
        HandlerBench.Settings tiny = new HandlerBench.Settings(PIPELINE, "validate", true, false, 200, 1, 200);
        HandlerBench.StageResult result = HandlerBench.measure(definition, tiny, "validate");

        assertThat(result.sluice().cpuMicrosPerEvent()).isPositive();
        assertThat(result.naive().cpuMicrosPerEvent()).isPositive();
        assertThat(result.sluice().bytesPerEvent()).isPositive();
        // one conditional put per accepted event against two, one object per batch (the definition's
        // batch size) each
        double objectsPer1000 = 1000.0 / definition.stage("validate").batching().batchSize();
        assertThat(result.sluice().requestsPer1000().get("DYNAMODB PutItem")).isBetween(980.0, 1000.0);
        assertThat(result.naive().requestsPer1000().get("DYNAMODB PutItem")).isBetween(1960.0, 2000.0);
        assertThat(result.sluice().requestsPer1000().get("S3 PutObject")).isEqualTo(objectsPer1000);
        assertThat(result.naive().requestsPer1000().get("S3 PutObject")).isEqualTo(objectsPer1000);
        assertThat(result.sluice().initCalls())
                .containsExactly("SECRETSMANAGER GetSecretValue [sluice-tokenization-key]");
        assertThat(HandlerBench.resultLine(List.of(result)))
                .startsWith("RESULT cpu_us_per_event=")
                .contains(" naive_cpu_us_per_event=", " ratio=", " bytes_per_event=", " naive_bytes_per_event=")
                .contains(
                        " requests_per_1000_dynamodb_putitem=",
                        String.format(
                                java.util.Locale.ROOT, " naive_requests_per_1000_s3_putobject=%.1f", objectsPer1000))
                .contains(
                        " validate_aws_batch_ms_p50=",
                        " validate_aws_batch_ms_p99=",
                        " validate_aws_ceiling_per_shard=",
                        " validate_naive_aws_ceiling_per_shard=");
        // the model: payments' validate stage at its function's memory, PF 1, the only consumer of its stream
        HandlerBench.Modelled model = result.model();
        assertThat(model.memoryMb())
                .isEqualTo(definition.stage("validate").function().memoryMb());
        assertThat(model.parallelization()).isEqualTo(1);
        assertThat(model.pollingConsumers()).isEqualTo(1);
        assertThat(model.durations().p99Millis())
                .isGreaterThan(model.durations().p50Millis());
        assertThat(model.durations().p50Millis())
                .isGreaterThan(model.durations().cpuMillis());
        // a full batch at PF 1: the ceiling is batch ÷ (mean duration + gap), by construction
        int batch = definition.stage("validate").batching().batchSize();
        assertThat(model.ceiling().byProcessing())
                .isCloseTo(
                        batch * 1000.0 / (model.durations().meanMillis() + model.pollGapMillis()),
                        org.assertj.core.api.Assertions.within(1e-6));
    }

    // ---- effects, comparable across the two handlers

    /** pk → the stored event without {@code ingestedAt} (stamped by each handler's own clock). */
    private static Map<String, JsonNode> stateItems(String prefix) {
        Map<String, JsonNode> out = new TreeMap<>();
        stub.items(prefix + "payments-by-id")
                .values()
                .forEach(item -> out.put(
                        item.path("pk").path("S").asText(),
                        withoutIngestedAt(item.path("event").path("S").asText())));
        return out;
    }

    private static List<String> lakeLines(String prefix) {
        List<String> lines = new ArrayList<>();
        for (AwsStub.StoredObject object :
                stub.objects(prefix + "payments-lake").values()) {
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(object.body()))) {
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                    if (!line.isEmpty()) {
                        lines.add(withoutIngestedAt(line).toString());
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        lines.sort(null);
        return lines;
    }

    /** pk → count, sum, min, max. */
    private static Map<String, JsonNode> aggregates(String prefix) {
        Map<String, JsonNode> out = new TreeMap<>();
        stub.items(prefix + "spend-per-currency-hourly").values().forEach(item -> {
            ObjectNode figures = JSON.createObjectNode();
            for (String f : List.of("count", "sum", "min", "max")) {
                figures.put(
                        f,
                        new java.math.BigDecimal(item.path(f).path("N").asText())
                                .stripTrailingZeros()
                                .toPlainString());
            }
            out.put(item.path("pk").path("S").asText(), figures);
        });
        return out;
    }

    /** sequence number → reason code. */
    private static Map<String, String> deadLetters(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        for (AwsStub.Message m : stub.messages(env.get(EnvironmentNames.queueUrl("payments-dlq")))) {
            JsonNode body = parse(m.body());
            out.put(body.path("sequenceNumber").asText(), m.attributes().get(SqsDeadLetterSink.REASON_CODE_ATTRIBUTE));
        }
        return out;
    }

    private static JsonNode withoutIngestedAt(String json) {
        ObjectNode tree = (ObjectNode) parse(json);
        tree.remove("ingestedAt");
        return tree;
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
