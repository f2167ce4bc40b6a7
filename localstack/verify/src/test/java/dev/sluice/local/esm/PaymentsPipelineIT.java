package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import dev.sluice.verify.reconcile.AggregateCheck;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.sqs.model.Message;

/** The payments stage end to end through the local event-source mapping, on the real emulators. */
@ExtendWith(LocalAwsExtension.class)
class PaymentsPipelineIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .load(ROOT.resolve("pipelines/payments.yaml"));
    }

    private static List<GeneratedEvent> events(long seed, int n, double invalidShare) {
        PaymentGenerator generator =
                new PaymentGenerator(seed, 10_000, invalidShare, Instant.now().minusSeconds(600));
        List<GeneratedEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(generator.next());
        }
        return events;
    }

    private static Reconciliation reconcile(LocalAws aws, LocalPipeline pipeline, List<LedgerEntry> ledger) {
        var r = pipeline.resources();
        return new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs())
                .reconcile(
                        ledger,
                        r.bucket(),
                        "payments/",
                        r.tables().get("payments-by-id"),
                        r.queueUrls().get("payments-dlq"),
                        AggregateCheck.of(payments().stage("validate"), r.tables()));
    }

    private static LocalPipeline start(LocalAws aws, ResourceNames names) {
        return LocalPipeline.provision(aws, payments(), names, ROOT).start(Optional.of(Duration.ZERO));
    }

    @Test
    void stageRunsEndToEndAndEveryEventTakesEffectOnce(LocalAws aws, ResourceNames names) {
        try (LocalPipeline pipeline = start(aws, names)) {
            List<LedgerEntry> ledger = new Producer(
                            aws.kinesis(), pipeline.resources().streams().get("payments-raw"))
                    .send(events(1, 400, 0.05), n -> {});

            await().atMost(Duration.ofSeconds(90)).until(() -> pipeline.acknowledged() >= ledger.size());

            Reconciliation result = reconcile(aws, pipeline, ledger);
            assertThat(result.problems()).isEmpty();
            assertThat(result.reconciled()).isTrue();
            assertThat(result.deadLettered()).isPositive();
            assertThat(result.lake() + result.deadLettered()).isEqualTo(400);
            // every valid payment counted once in its currency's hour
            assertThat(result.late()).isZero();
            assertThat(result.aggregated()).isEqualTo(result.lake());
        }
    }

    @Test
    void badRecordReachesTheDeadLetterQueueWithItsReasonAndDoesNotBlockTheShard(LocalAws aws, ResourceNames names) {
        try (LocalPipeline pipeline = start(aws, names)) {
            String bad = new String(events(2, 1, 0).get(0).data(), StandardCharsets.UTF_8)
                    .replaceFirst("\"amount\":[0-9.]+", "\"amount\":-3.5");
            GeneratedEvent poison = new GeneratedEvent(
                    "poison", "cust-0000001", bad.getBytes(StandardCharsets.UTF_8), "SCHEMA_INVALID");
            List<GeneratedEvent> sent = new ArrayList<>(List.of(poison));
            sent.addAll(events(3, 20, 0));
            List<LedgerEntry> ledger =
                    new Producer(aws.kinesis(), pipeline.resources().streams().get("payments-raw")).send(sent, n -> {});

            await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.acknowledged() >= ledger.size());

            String queue = pipeline.resources().queueUrls().get("payments-dlq");
            List<Message> messages = aws.sqs()
                    .receiveMessage(
                            b -> b.queueUrl(queue).maxNumberOfMessages(10).messageAttributeNames("All"))
                    .messages();
            assertThat(messages).hasSize(1);
            JsonNode body = read(messages.get(0).body());
            assertThat(body.path("reason").asText())
                    .isEqualTo("SCHEMA_INVALID: $.payload.amount: must have an exclusive minimum value of 0"
                            + " (exclusiveMinimum)");
            assertThat(body.path("payload").asText()).isEqualTo(bad);
            assertThat(body.path("shardId").asText()).isEqualTo(ledger.get(0).shardId());
            assertThat(body.path("sequenceNumber").asText())
                    .isEqualTo(ledger.get(0).sequenceNumber());
            assertThat(messages.get(0)
                            .messageAttributes()
                            .get("sluice-reason-code")
                            .stringValue())
                    .isEqualTo("SCHEMA_INVALID");
            // the twenty good payments behind it landed
            assertThat(reconcile(aws, pipeline, ledger).lake()).isEqualTo(20);
        }
    }

    @Test
    void restartedMappingResumesFromItsCheckpointWithoutReprocessing(LocalAws aws, ResourceNames names) {
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, payments(), names, ROOT)) {
            LocalFunction function = pipeline.function("validate");
            MappingConfig config =
                    pipeline.resources().mappings().get("validate").withBatchingWindow(Duration.ZERO);
            Producer producer =
                    new Producer(aws.kinesis(), pipeline.resources().streams().get("payments-raw"));
            List<LedgerEntry> ledger = new ArrayList<>(producer.send(events(4, 200, 0.02), n -> {}));

            try (LocalEventSourceMapping first =
                    pipeline.mapping(config, function).start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> first.acknowledged() >= 200);
            }
            ledger.addAll(producer.send(events(5, 150, 0.02), n -> {}));
            try (LocalEventSourceMapping second =
                    pipeline.mapping(config, function).start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> second.acknowledged() >= 150);
                // give the restarted mapping the chance to (wrongly) read the committed batches again
                await().during(Duration.ofSeconds(2))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> second.stats().recordsInvoked() == 150);
                assertThat(second.stats().recordsInvoked()).isEqualTo(150);
            }
            Reconciliation result = reconcile(aws, pipeline, ledger);
            assertThat(result.problems()).isEmpty();
            assertThat(result.reconciled()).isTrue();
            assertThat(result.produced()).isEqualTo(350);
            assertThat(result.aggregated()).isEqualTo(result.lake());
        }
    }

    private static JsonNode read(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
