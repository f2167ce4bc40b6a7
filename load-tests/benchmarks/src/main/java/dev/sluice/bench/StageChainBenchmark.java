package dev.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Single-thread throughput of a stage's step chain, in events per second, against two baselines
 * in the same run: the chain's work is parse, steps, and serialising each accepted event to bytes
 * as a sink does; the baseline is only the parse and the serialisation, with the same mapper over
 * the same bytes; the naive stage ({@link NaiveStage}) does the chain's steps the way a user would
 * write them on a Jackson tree. Each call handles one batch of {@value Workload#BATCH_SIZE} records, so with
 * {@link OperationsPerInvocation} the scores are events (records in) per second.
 *
 * <p>The annotations hold the full run's settings for {@code java -jar sluice-benchmarks.jar};
 * {@link BenchCore} sets its own.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 3)
@Measurement(iterations = 5, time = 4)
public class StageChainBenchmark {

    /** The generated batches, cycled: shared by both benchmarks so they see the same bytes. */
    @State(Scope.Thread)
    public static class Events {

        ObjectMapper mapper;
        List<List<InboundRecord>> batches;
        int cursor;

        @Setup(Level.Trial)
        public void generate() {
            mapper = Workload.mapper();
            batches = Workload.batches(Workload.events());
            cursor = 0;
        }

        /** The next batch, wrapping around after the last. */
        List<InboundRecord> next() {
            List<InboundRecord> batch = batches.get(cursor);
            cursor = cursor + 1 == batches.size() ? 0 : cursor + 1;
            return batch;
        }
    }

    /** The chain under test, compiled once from the {@code pipeline} definition. */
    @State(Scope.Thread)
    public static class Chain {

        /** {@code classpath:NAME} for a definition packaged in this jar, or a file path. */
        @Param(Workload.DEFAULT_PIPELINE)
        public String pipeline;

        /** The stage whose chain is measured; empty for the definition's first stage. */
        @Param("")
        public String stage;

        ObjectMapper mapper;
        StageChain chain;

        @Setup(Level.Trial)
        public void compile() {
            mapper = Workload.mapper();
            SchemaCatalog schemas = Workload.schemas(mapper);
            PipelineDefinition definition = Workload.pipeline(pipeline, schemas);
            chain = Workload.compile(definition, Workload.stage(definition, stage), schemas, mapper);
        }
    }

    /**
     * The stage a user would write for the same definition ({@link NaiveStage}): tree, networknt,
     * masking on the tree, {@code writeValueAsBytes}. Compiled once.
     */
    @State(Scope.Thread)
    public static class Naive {

        /** The same definition as {@link Chain#pipeline} (JMH gives both states the same values). */
        @Param(Workload.DEFAULT_PIPELINE)
        public String pipeline;

        /** The same stage as {@link Chain#stage}. */
        @Param("")
        public String stage;

        NaiveStage naive;

        @Setup(Level.Trial)
        public void compile() {
            ObjectMapper mapper = Workload.mapper();
            SchemaCatalog schemas = Workload.schemas(mapper);
            PipelineDefinition definition = Workload.pipeline(pipeline, schemas);
            naive = Workload.naive(definition, Workload.stage(definition, stage), schemas, mapper, Clock.systemUTC());
        }
    }

    /**
     * One batch through the chain, then every accepted event serialised to bytes as a sink would.
     *
     * @return how many events the chain accepted
     */
    @Benchmark
    @OperationsPerInvocation(Workload.BATCH_SIZE)
    public int chain(Events events, Chain chain, Blackhole bh) throws IOException {
        BatchOutcome outcome = chain.chain.process(events.next());
        List<ProcessedEvent> accepted = outcome.accepted();
        for (int i = 0; i < accepted.size(); i++) {
            bh.consume(accepted.get(i).json());
        }
        bh.consume(outcome); // dead letters, side outputs, partial aggregates
        return accepted.size();
    }

    /**
     * The same batch through the naive stage, which serialises every accepted event itself.
     *
     * @return how many events it accepted
     */
    @Benchmark
    @OperationsPerInvocation(Workload.BATCH_SIZE)
    public int naive(Events events, Naive naive, Blackhole bh) {
        NaiveStage.Result result = naive.naive.process(events.next());
        List<NaiveStage.Accepted> accepted = result.accepted();
        for (int i = 0; i < accepted.size(); i++) {
            bh.consume(accepted.get(i).json());
        }
        bh.consume(result); // dead letters, late events, totals
        return accepted.size();
    }

    /**
     * The same batch parsed into a Jackson tree and serialised back, nothing else. Malformed
     * records fail the parse and are skipped, as the chain dead-letters them.
     *
     * @return how many records parsed
     */
    @Benchmark
    @OperationsPerInvocation(Workload.BATCH_SIZE)
    public int baseline(Events events, Blackhole bh) throws IOException {
        List<InboundRecord> batch = events.next();
        int parsed = 0;
        for (int i = 0; i < batch.size(); i++) {
            JsonNode tree;
            try {
                tree = events.mapper.readTree(batch.get(i).data());
            } catch (IOException e) {
                bh.consume(e);
                continue;
            }
            bh.consume(events.mapper.writeValueAsBytes(tree));
            parsed++;
        }
        return parsed;
    }
}
