package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.window.PartialAggregate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The naive stage does the chain's work: over the benchmark's whole workload it accepts the same
 * events with the same bytes (tokens, masks, {@code ingestedAt}), dead-letters the same records
 * for the same reasons, filters as many, reports the same late events and adds up the same
 * totals per (key, window). So {@code ratio_naive} compares equal work. No timing here.
 */
class NaiveStageTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-03-01T08:00:05.123Z"), ZoneOffset.UTC);

    private static ObjectMapper mapper;
    private static SchemaCatalog schemas;
    private static List<List<InboundRecord>> batches;

    @BeforeAll
    static void workload() {
        mapper = Workload.mapper();
        schemas = Workload.schemas(mapper);
        batches = Workload.batches(Workload.events());
    }

    @Test
    void naiveStageProducesTheChainsOutputForTheDefaultBenchPipeline() {
        PipelineDefinition definition = Workload.pipeline(Workload.DEFAULT_PIPELINE, schemas);
        String stage = Workload.stage(definition, "");
        Totals seen = assertSameOutput(definition, stage);
        // the comparison covered every step: tokens and masks, dead letters, aggregates (the filter,
        // amount > 1.0, runs on every event and drops none of the workload's valid ones)
        assertThat(seen.accepted).isGreaterThan(8_000);
        assertThat(seen.deadLetters).isBetween(20, 100);
        assertThat(seen.windows).isGreaterThan(1_000);
    }

    @Test
    void naiveStageProducesTheChainsOutputForTheValidateOnlyPipeline() {
        PipelineDefinition definition = Workload.pipeline(Workload.CLASSPATH + "validate-only.yaml", schemas);
        Totals seen = assertSameOutput(definition, "validate");
        assertThat(seen.accepted + seen.deadLetters).isEqualTo(Workload.EVENTS);
    }

    @Test
    void naiveStageProducesTheChainsOutputForTheRepositoryPaymentsStage() {
        // min and max, an hour's window, 24 h of allowed lateness
        PipelineDefinition definition = Workload.pipeline(repositoryFile("pipelines/payments.yaml"), schemas);
        Totals seen = assertSameOutput(definition, "validate");
        assertThat(seen.windows).isPositive();
    }

    @Test
    void theComparisonCatchesANaiveStageThatTokenizesWithAnotherKey() {
        PipelineDefinition definition = Workload.pipeline(Workload.DEFAULT_PIPELINE, schemas);
        String stage = Workload.stage(definition, "");
        StageChain chain = Workload.compile(definition, stage, schemas, mapper, CLOCK);
        byte[] otherKey = "another-tokenization-key-of-at-least-32-bytes".getBytes(StandardCharsets.UTF_8);
        NaiveStage wrongKey = NaiveStage.compile(definition, stage, schemas, name -> otherKey.clone(), mapper, CLOCK);
        List<String> differences = differences(chain.process(batches.get(0)), wrongKey.process(batches.get(0)));
        assertThat(differences).isNotEmpty().first().asString().contains("bytes differ");
    }

    @Test
    void stepsTheNaiveStageDoesNotCoverAreRefusedWithTheReason() {
        PipelineDefinition clickstream = Workload.pipeline(repositoryFile("pipelines/clickstream.yaml"), schemas);
        String first = Workload.stage(clickstream, "");
        assertThatThrownBy(() -> Workload.naive(clickstream, first, schemas, mapper, CLOCK))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("filters on 'field");
    }

    /** What a comparison went through, to show it compared something. */
    private static final class Totals {
        int accepted;
        int deadLetters;
        int windows;
    }

    private static Totals assertSameOutput(PipelineDefinition definition, String stage) {
        StageChain chain = Workload.compile(definition, stage, schemas, mapper, CLOCK);
        NaiveStage naive = Workload.naive(definition, stage, schemas, mapper, CLOCK);
        Totals seen = new Totals();
        for (int i = 0; i < batches.size(); i++) {
            BatchOutcome expected = chain.process(batches.get(i));
            NaiveStage.Result actual = naive.process(batches.get(i));
            assertThat(differences(expected, actual)).as("batch %d", i).isEmpty();
            seen.accepted += actual.accepted().size();
            seen.deadLetters += actual.deadLetters().size();
            seen.windows += actual.aggregates().size();
        }
        return seen;
    }

    /** How the naive stage's result differs from the chain's outcome; empty when it does not. */
    private static List<String> differences(BatchOutcome chain, NaiveStage.Result naive) {
        List<String> out = new ArrayList<>();
        List<ProcessedEvent> accepted = chain.accepted();
        if (accepted.size() != naive.accepted().size()) {
            out.add("accepted " + naive.accepted().size() + ", the chain " + accepted.size());
            return out;
        }
        for (int i = 0; i < accepted.size(); i++) {
            ProcessedEvent c = accepted.get(i);
            NaiveStage.Accepted n = naive.accepted().get(i);
            if (c.source() != n.source()
                    || !c.eventId().equals(n.eventId())
                    || !c.key().equals(n.partitionKey())
                    || !c.occurredAt().equals(n.occurredAt())) {
                out.add("event " + i + ": " + n.eventId() + " / " + n.partitionKey() + ", the chain " + c.eventId()
                        + " / " + c.key());
            }
            if (!Arrays.equals(c.json(), n.json())) {
                // the bytes a sink writes, not only the same tree
                out.add("event " + c.eventId() + ": bytes differ: " + new String(n.json(), StandardCharsets.UTF_8)
                        + " , the chain " + new String(c.json(), StandardCharsets.UTF_8) + " (same tree: "
                        + tree(c.json()).equals(tree(n.json())) + ")");
            }
        }
        if (!reasons(chain.deadLetters()).equals(reasons(naive.deadLetters()))) {
            out.add("dead letters " + reasons(naive.deadLetters()) + ", the chain " + reasons(chain.deadLetters()));
        }
        if (chain.filtered() != naive.filtered()) {
            out.add("filtered " + naive.filtered() + ", the chain " + chain.filtered());
        }
        if (!reasons(chain.sideOutputs()).equals(reasons(naive.late()))) {
            out.add("late " + reasons(naive.late()) + ", the chain " + reasons(chain.sideOutputs()));
        }
        Map<NaiveStage.Window, NaiveStage.Totals> totals = new HashMap<>();
        for (PartialAggregate p : chain.aggregates()) {
            totals.put(
                    new NaiveStage.Window(p.aggregate(), p.key(), p.windowStart()),
                    new NaiveStage.Totals(p.count(), p.sum(), p.min(), p.max()));
        }
        if (!totals.equals(naive.aggregates())) {
            out.add("aggregates " + naive.aggregates() + ", the chain " + totals);
        }
        return out;
    }

    /** Each dead letter's record (by sequence number) and reason code, in order. */
    private static List<String> reasons(List<DeadLetter> letters) {
        return letters.stream()
                .map(d -> d.source().position().sequence() + " " + d.code())
                .toList();
    }

    private static Object tree(byte[] json) {
        try {
            return mapper.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String repositoryFile(String path) {
        return Path.of(System.getProperty("sluice.root", "../.."), path)
                .toAbsolutePath()
                .normalize()
                .toString();
    }
}
