package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import dev.sluice.local.LocalPipeline;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Reconciler#ownEvents} on a pipeline that already holds other events (as a deployed one
 * does): the other payments — in the same currency-hours, some dead-lettered — are in the lake, the
 * table, the aggregate and the dead-letter queue, yet only the run's own events are counted, each
 * once; the whole-target reconciliation of the same ledger reports the others as unexpected.
 */
@ExtendWith(LocalAwsExtension.class)
class OwnEventsReconciliationIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/payments.yaml"));
    }

    private static List<GeneratedEvent> events(long seed, double invalidShare, int count, Instant at) {
        // few customers and currencies: the two runs share (currency, hour) aggregate items
        PaymentGenerator generator = new PaymentGenerator(seed, 20, invalidShare, at);
        List<GeneratedEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(generator.next(at));
        }
        return events;
    }

    @Test
    void onlyTheRunsOwnEventsAreCountedAmongOtherEventsInEveryTarget(LocalAws aws, ResourceNames names) {
        PipelineDefinition payments = payments();
        StageDefinition stage = payments.stage("validate");
        try (LocalPipeline pipeline =
                LocalPipeline.provision(aws, payments, names, ROOT).start(Optional.of(Duration.ZERO))) {
            var resources = pipeline.resources();
            Producer producer = new Producer(aws.kinesis(), resources.streams().get("payments-raw"));
            Reconciler reconciler = new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs());
            Reconciler.Targets targets = new Reconciler.Targets(
                    resources.bucket(),
                    Reconciler.lakePrefix(resources, stage),
                    resources.tables().get(Reconciler.sink(stage, SinkDefinition.Kind.TABLE)),
                    payments.tables().get("payments-by-id").key(),
                    resources.queueUrls().get("payments-dlq"),
                    AggregateCheck.of(stage, resources.tables()));
            Instant now = Instant.now();

            List<LedgerEntry> others = producer.send(events(1L, 0.2, 40, now), n -> {});
            pipeline.awaitAcknowledged(others.size(), Duration.ofMinutes(1), n -> {});

            Reconciler.OwnEvents own = reconciler.ownEvents(targets);
            assertThat(own.baseline())
                    .as("the other events' counts, read before the run")
                    .isNotEmpty();
            List<GeneratedEvent> mine = events(2L, 0.2, 30, now);
            long valid = mine.stream().filter(GeneratedEvent::valid).count();
            long invalid = mine.size() - valid;
            assertThat(invalid).isPositive();
            List<LedgerEntry> ledger = producer.send(mine, n -> {});

            AtomicReference<Reconciliation> result = new AtomicReference<>();
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        result.set(own.check(ledger));
                        return result.get().lost() == 0 && result.get().deadLettered() == invalid;
                    });
            Reconciliation r = own.check(ledger);
            assertThat(r.problems()).isEmpty();
            assertThat(r.lake()).isEqualTo(valid);
            assertThat(r.table()).isEqualTo(valid);
            assertThat(r.aggregated()).isEqualTo(valid);
            assertThat(r.deadLettered()).isEqualTo(invalid);
            assertThat(r.duplicates()).isZero();
            assertThat(r.unexpected()).isZero();

            Reconciliation whole = reconciler.reconcile(ledger, resources, stage);
            assertThat(whole.unexpected())
                    .as("the whole targets hold the other events too")
                    .isPositive();
        }
    }
}
