package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import dev.sluice.verify.reconcile.AggregatingProducer;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * KPL-aggregated records put into the local {@code payments-raw} (kinesis-mock, through the local
 * event-source mapping and the real handler): each user record reaches the lake and the table once,
 * a schema-invalid user record is dead-lettered alone under its sub-sequence, a corrupt aggregate is
 * dead-lettered whole as {@code MALFORMED_AGGREGATE}, and the shard moves on.
 */
@ExtendWith(LocalAwsExtension.class)
class KplAggregatedRecordsIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void everyUserRecordOfAnAggregateReachesTheLakeOnceAndACorruptAggregateIsDeadLetteredWhole(
            LocalAws aws, ResourceNames names) {
        PipelineDefinition payments = new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .load(ROOT.resolve("pipelines/payments.yaml"));
        String stageName = payments.stages().keySet().iterator().next();
        StageDefinition stage = payments.stage(stageName);
        PaymentGenerator generator =
                new PaymentGenerator(15, 12, 0.05, Instant.now().minusSeconds(60));
        List<GeneratedEvent> events = new ArrayList<>();
        for (int i = 0; i < 160; i++) {
            events.add(generator.next());
        }

        try (LocalPipeline pipeline =
                LocalPipeline.provision(aws, payments, names, ROOT).start(Optional.of(Duration.ZERO))) {
            AggregatingProducer producer = new AggregatingProducer(
                    pipeline.producerKinesis(), pipeline.resources().streams().get(stage.input()), 8 * 1024, 4);
            List<LedgerEntry> ledger = producer.send(events, n -> {});
            pipeline.awaitAcknowledged(producer.kinesisRecords(), Duration.ofSeconds(90), n -> {});

            Reconciliation r =
                    new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs()).reconcile(ledger, pipeline.resources(), stage);

            long corrupt = ledger.stream()
                    .filter(e -> AggregatingProducer.MALFORMED_AGGREGATE.equals(
                            e.event().expectedReason()))
                    .count();
            long valid = ledger.stream().filter(e -> e.event().valid()).count();
            assertThat(producer.kinesisRecords()).isGreaterThan(4).isLessThan(events.size() / 4);
            assertThat(corrupt).isPositive();
            assertThat(ledger).anySatisfy(e -> assertThat(e.subSequence()).isPositive());
            assertThat(ledger)
                    .filteredOn(e -> !e.event().valid() && e.subSequence() > 0)
                    .as("a bad user record inside an aggregate")
                    .isNotEmpty();
            assertThat(r.problems()).isEmpty();
            assertThat(r.reconciled()).isTrue();
            assertThat(r.lake()).isEqualTo(valid);
            assertThat(r.table()).isEqualTo(valid);
            assertThat(r.duplicates()).isZero();
        }
    }
}
