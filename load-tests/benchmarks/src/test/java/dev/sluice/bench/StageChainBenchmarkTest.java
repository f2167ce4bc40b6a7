package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.generators.GeneratedEvent;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The harness measures real work: the states set up, and one call of each benchmark per batch
 * handles the whole batch with the expected outcome. No timing here; that is JMH's job.
 */
class StageChainBenchmarkTest {

    private static final Blackhole BLACKHOLE = new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

    private static List<GeneratedEvent> events;

    @BeforeAll
    static void generate() {
        events = Workload.events();
    }

    @Test
    void workloadIsTenThousandRealisticPaymentsWithAFewInvalidOnes() {
        assertThat(events).hasSize(Workload.EVENTS);
        long invalid = events.stream().filter(e -> !e.valid()).count();
        assertThat(invalid).isBetween(20L, 100L); // 0.5 % of 10,000, give or take the dice
        assertThat(events).allSatisfy(e -> assertThat(e.data().length).isBetween(150, 600));
        assertThat(Workload.batches(events)).hasSize(Workload.EVENTS / Workload.BATCH_SIZE);
    }

    @Test
    void everyBenchmarkCountsOneEventPerRecordOfItsBatch() {
        for (String name : List.of("chain", "baseline", "naive")) {
            Method method = benchmarkMethod(name);
            assertThat(method.getAnnotation(OperationsPerInvocation.class).value())
                    .as(name)
                    .isEqualTo(Workload.BATCH_SIZE);
        }
    }

    @Test
    void validateOnlyChainAcceptsExactlyTheValidEventsOfEachBatch() throws Exception {
        StageChainBenchmark benchmark = new StageChainBenchmark();
        StageChainBenchmark.Events state = events();
        StageChainBenchmark.Chain chain = chain(Workload.CLASSPATH + "validate-only.yaml", "validate");
        int total = 0;
        for (int batch = 0; batch < state.batches.size(); batch++) {
            int accepted = benchmark.chain(state, chain, BLACKHOLE);
            assertThat(accepted).as("batch %d", batch).isEqualTo(expectedValid(batch));
            total += accepted;
        }
        assertThat(total)
                .isEqualTo(events.stream().filter(GeneratedEvent::valid).count());
        assertThat(state.cursor).as("cycled back to the first batch").isZero();
    }

    @Test
    void defaultBenchPipelineCompilesAndLetsEventsThrough() throws Exception {
        StageChainBenchmark benchmark = new StageChainBenchmark();
        StageChainBenchmark.Events state = events();
        StageChainBenchmark.Chain chain = chain(Workload.DEFAULT_PIPELINE, "");
        int total = 0;
        for (int batch = 0; batch < state.batches.size(); batch++) {
            int accepted = benchmark.chain(state, chain, BLACKHOLE);
            // a filter or an aggregate step may let fewer through than are valid, never more
            assertThat(accepted).as("batch %d", batch).isBetween(0, expectedValid(batch));
            total += accepted;
        }
        assertThat(total).as("the chain does work on most events").isGreaterThan(0);
    }

    @Test
    void repositoryPaymentsPipelineCompilesWithItsStepsAndLetsValidEventsThrough() throws Exception {
        // pipelines/payments.yaml masks PII: the chain gets the benchmark's fixed tokenization key
        String payments = Path.of(System.getProperty("sluice.root", "../.."), "pipelines", "payments.yaml")
                .toAbsolutePath()
                .normalize()
                .toString();
        StageChainBenchmark benchmark = new StageChainBenchmark();
        StageChainBenchmark.Events state = events();
        StageChainBenchmark.Chain chain = chain(payments, "validate");
        int accepted = benchmark.chain(state, chain, BLACKHOLE);
        assertThat(accepted).isBetween(1, expectedValid(0));
    }

    @Test
    void naiveStageAcceptsExactlyTheValidEventsOfEachBatch() {
        StageChainBenchmark benchmark = new StageChainBenchmark();
        StageChainBenchmark.Events state = events();
        StageChainBenchmark.Naive naive = new StageChainBenchmark.Naive();
        naive.pipeline = Workload.DEFAULT_PIPELINE;
        naive.stage = "";
        naive.compile();
        for (int batch = 0; batch < state.batches.size(); batch++) {
            // the workload's valid payments all pass the filter (amount > 1.0)
            assertThat(benchmark.naive(state, naive, BLACKHOLE))
                    .as("batch %d", batch)
                    .isEqualTo(expectedValid(batch));
        }
    }

    @Test
    void baselineParsesEveryWellFormedRecordOfEachBatch() throws Exception {
        StageChainBenchmark benchmark = new StageChainBenchmark();
        StageChainBenchmark.Events state = events();
        for (int batch = 0; batch < state.batches.size(); batch++) {
            int parsed = benchmark.baseline(state, BLACKHOLE);
            long wellFormed = batch(batch).stream()
                    .filter(e -> !"MALFORMED_JSON".equals(e.expectedReason()))
                    .count();
            assertThat(parsed).as("batch %d", batch).isEqualTo(wellFormed);
        }
    }

    @Test
    void benchmarkBatchesAreTheGeneratedBytes() {
        StageChainBenchmark.Events state = events();
        List<InboundRecord> first = state.next();
        assertThat(first).hasSize(Workload.BATCH_SIZE);
        for (int i = 0; i < first.size(); i++) {
            assertThat(first.get(i).data()).isEqualTo(events.get(i).data());
        }
    }

    @Test
    void badArgumentsFailWithOneLine() {
        assertThatThrownBy(() -> BenchCore.parse(new String[] {"--fast"})).hasMessage("unknown option '--fast'");
        assertThatThrownBy(() -> BenchCore.parse(new String[] {"--pipeline"})).hasMessage("--pipeline needs a value");
        assertThat(BenchCore.parse(new String[] {"--quick"}).quick()).isTrue();
        assertThatThrownBy(() -> chain(Workload.DEFAULT_PIPELINE, "nope")).hasMessageContaining("has no stage 'nope'");
    }

    private static StageChainBenchmark.Events events() {
        StageChainBenchmark.Events state = new StageChainBenchmark.Events();
        state.generate();
        return state;
    }

    private static StageChainBenchmark.Chain chain(String pipeline, String stage) {
        StageChainBenchmark.Chain chain = new StageChainBenchmark.Chain();
        chain.pipeline = pipeline;
        chain.stage = stage;
        chain.compile();
        return chain;
    }

    private static List<GeneratedEvent> batch(int batch) {
        return events.subList(batch * Workload.BATCH_SIZE, (batch + 1) * Workload.BATCH_SIZE);
    }

    private static int expectedValid(int batch) {
        return (int) batch(batch).stream().filter(GeneratedEvent::valid).count();
    }

    private static Method benchmarkMethod(String name) {
        for (Method m : StageChainBenchmark.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError("no benchmark method " + name);
    }
}
