package dev.sluice.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the core benchmarks are fed: generated card payments cut into Kinesis-sized batches, the
 * pipeline definition whose chain is measured, and the mapper the Lambda runtime uses. Everything
 * here happens once, before measuring.
 */
public final class Workload {

    /** Records per batch: the payments stage's {@code batchSize}, and JMH's operations per call. */
    public static final int BATCH_SIZE = 100;

    /** Distinct events generated and then cycled through. */
    public static final int EVENTS = 10_000;

    /** Share of events that are invalid on purpose (malformed, negative amount, ...). */
    public static final double INVALID_SHARE = 0.005;

    /** Fixed, so that every run measures the same bytes. */
    public static final long SEED = 20_240_601L;

    /** Prefix of a {@code pipeline} parameter that names a resource of the benchmarks jar. */
    public static final String CLASSPATH = "classpath:";

    /** The default {@code pipeline} parameter: validate-only for now, see the file's comment. */
    public static final String DEFAULT_PIPELINE = CLASSPATH + "bench-payments.yaml";

    /** Any secret name gets this key: benchmarks only, never a real one. */
    private static final byte[] BENCH_SECRET =
            "sluice-benchmark-tokenization-key-not-a-secret".getBytes(StandardCharsets.UTF_8);

    private static final Instant START = Instant.parse("2025-03-01T08:00:00Z");
    private static final String STREAM = "bench-payments-raw";
    private static final String SHARD = "shardId-000000000000";

    private Workload() {}

    /**
     * The mapper the Lambda runtime parses and serialises with ({@code StageRuntime.mapper()}):
     * amounts stay {@link java.math.BigDecimal}s. Rebuilt here so the benchmarks need only
     * pipeline-core, not the AWS SDK.
     */
    public static ObjectMapper mapper() {
        return new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    /**
     * The schemas: the repository's {@code schemas/} when {@code -Dsluice.root} points at a checkout
     * (the launcher and the build set it), else the copies packaged in pipeline-core.
     */
    public static SchemaCatalog schemas(ObjectMapper mapper) {
        String root = System.getProperty("sluice.root");
        if (root != null && !root.isBlank() && Files.isDirectory(Path.of(root, "schemas"))) {
            return SchemaCatalog.fromDirectory(Path.of(root, "schemas"), mapper);
        }
        return SchemaCatalog.fromClasspath(Workload.class.getClassLoader(), mapper);
    }

    /**
     * Loads a pipeline definition: {@code classpath:NAME} for a resource of this jar, else a file.
     *
     * @throws IllegalArgumentException if there is no such resource or file
     */
    public static PipelineDefinition pipeline(String spec, SchemaCatalog schemas) {
        DefinitionLoader loader = new DefinitionLoader(schemas);
        if (spec.startsWith(CLASSPATH)) {
            String name = spec.substring(CLASSPATH.length());
            try (InputStream in = Workload.class.getClassLoader().getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalArgumentException("no pipeline definition '" + name + "' in the benchmarks jar");
                }
                return loader.parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + spec, e);
            }
        }
        Path file = Path.of(spec);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("pipeline definition " + file.toAbsolutePath() + " does not exist");
        }
        return loader.load(file);
    }

    /**
     * Compiles a stage's chain the way a host does, with a fixed tokenization key so that a
     * {@code mask} step can tokenize. Enrich steps need reference caches a benchmark does not
     * have: compiling one fails with pipeline-core's message.
     */
    public static StageChain compile(
            PipelineDefinition pipeline, String stage, SchemaCatalog schemas, ObjectMapper mapper) {
        return compile(pipeline, stage, schemas, mapper, Clock.systemUTC());
    }

    /** As {@link #compile(PipelineDefinition, String, SchemaCatalog, ObjectMapper)}, stamping {@code ingestedAt} from {@code clock}. */
    public static StageChain compile(
            PipelineDefinition pipeline, String stage, SchemaCatalog schemas, ObjectMapper mapper, Clock clock) {
        return StageChain.compile(pipeline, stage, new StageServices(schemas, mapper, clock, secrets(), Map.of()));
    }

    /**
     * The stage a user would write for the same definition ({@link NaiveStage}), with the same
     * tokenization key as {@link #compile}.
     *
     * @throws UnsupportedOperationException if the stage has a step the naive stage does not cover
     */
    public static NaiveStage naive(
            PipelineDefinition pipeline, String stage, SchemaCatalog schemas, ObjectMapper mapper, Clock clock) {
        return NaiveStage.compile(pipeline, stage, schemas, secrets(), mapper, clock);
    }

    /** Any secret name gets the benchmark's fixed key. */
    private static SecretProvider secrets() {
        return name -> BENCH_SECRET.clone();
    }

    /** The stage to measure: the one named, or the definition's first stage when none is. */
    public static String stage(PipelineDefinition pipeline, String requested) {
        if (requested != null && !requested.isBlank()) {
            pipeline.stage(requested); // fails with the stages there are
            return requested;
        }
        return pipeline.stages().keySet().iterator().next();
    }

    /** The generated events, deterministic for {@link #SEED}. */
    public static List<GeneratedEvent> events() {
        PaymentGenerator generator = new PaymentGenerator(SEED, 50_000, INVALID_SHARE, START);
        List<GeneratedEvent> events = new ArrayList<>(EVENTS);
        for (int i = 0; i < EVENTS; i++) {
            events.add(generator.next());
        }
        return List.copyOf(events);
    }

    /** The events as a shard delivers them: consecutive positions, {@link #BATCH_SIZE} per batch. */
    public static List<List<InboundRecord>> batches(List<GeneratedEvent> events) {
        List<List<InboundRecord>> batches = new ArrayList<>();
        List<InboundRecord> batch = new ArrayList<>(BATCH_SIZE);
        long sequence = 49_650_000_000_000_000L;
        for (GeneratedEvent event : events) {
            Position position = Position.of(SHARD, Long.toString(sequence++));
            batch.add(new InboundRecord(STREAM, position, event.partitionKey(), event.data(), START));
            if (batch.size() == BATCH_SIZE) {
                batches.add(List.copyOf(batch));
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            throw new IllegalStateException(EVENTS + " events do not fill whole batches of " + BATCH_SIZE);
        }
        return List.copyOf(batches);
    }
}
