package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.iam.Grants;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorker;
import dev.sluice.local.kcl.LocalKclWorkers;
import dev.sluice.local.template.CloudFormationTemplate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * The KCL ITs' and fault scenarios' test bed: the {@code kclviews} pipeline (page views partitioned
 * by page, one {@code consumer: kcl} stage that validates them, writes each once to the lake (with
 * its commit ledger) and stores each once by {@code eventId}, counts them per page per minute and
 * forwards them to an output stream), provisioned with fresh names, local KCL workers for its stage,
 * a producer with a ledger, and the checks: reconciliation (no loss, no duplicate effect in the
 * lake, the table and the aggregate), per-key order in the output stream and the lake, and figures
 * read from the workers' metrics (takeover time, records per second).
 */
public final class KclViewsRun implements AutoCloseable {

    public static final String PIPELINE = "kclviews";
    public static final String STAGE = "count-views";
    public static final String INPUT = "views";
    public static final String OUTPUT = "views-out";
    private static final int PAGES = 20;
    /** The input stream's shards as {@code kclviews.yaml} declares them. */
    public static final int INPUT_SHARDS = 4;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final LocalAws aws;
    private final LocalPipeline pipeline;
    private final LocalKclWorkers workers;
    private final Path metricsFile;
    private final String idPrefix;
    /** Guarded by itself: a paced producer adds to it from its own thread. */
    private final List<LedgerEntry> ledger = new ArrayList<>();
    /** Guarded by {@link #ledger}. */
    private int produced;

    private KclViewsRun(LocalAws aws, LocalPipeline pipeline, LocalKclWorkers workers, Path metricsFile, String id) {
        this.aws = aws;
        this.pipeline = pipeline;
        this.workers = workers;
        this.metricsFile = metricsFile;
        this.idPrefix = id;
    }

    /**
     * Provisions the pipeline; no worker is started.
     *
     * @param repository the repository root (schemas, and the built KCL app)
     * @param fanOut workers read with enhanced fan-out instead of polling
     */
    public static KclViewsRun provision(
            LocalAws aws, ResourceNames names, Path repository, boolean fanOut, KclTimings timings) {
        return provision(aws, names, repository, fanOut, timings, INPUT_SHARDS);
    }

    /**
     * Provisions the pipeline with {@code inputShards} shards in its input stream (instead of 4);
     * no worker is started.
     */
    public static KclViewsRun provision(
            LocalAws aws, ResourceNames names, Path repository, boolean fanOut, KclTimings timings, int inputShards) {
        try {
            Path work = Files.createTempDirectory("sluice-kcl-" + names.suffix());
            Path pipelines = Files.createDirectories(work.resolve("pipelines"));
            try (InputStream yaml = KclViewsRun.class.getResourceAsStream("/sluice/kcl/" + PIPELINE + ".yaml")) {
                String definition = new String(yaml.readAllBytes(), StandardCharsets.UTF_8);
                String declared = "  " + INPUT + ":\n    shards: " + INPUT_SHARDS + "\n";
                if (!definition.contains(declared)) {
                    throw new IllegalStateException(PIPELINE + ".yaml no longer declares " + declared.strip());
                }
                Files.writeString(
                        pipelines.resolve(PIPELINE + ".yaml"),
                        definition.replace(declared, "  " + INPUT + ":\n    shards: " + inputShards + "\n"));
            }
            PipelineDefinition definition = new DefinitionLoader(
                            SchemaCatalog.fromDirectory(repository.resolve("schemas"), MAPPER))
                    .load(pipelines.resolve(PIPELINE + ".yaml"));
            Path metrics = work.resolve("metrics.jsonl");
            LocalPipeline pipeline = LocalPipeline.provision(aws, definition, names, repository)
                    .withEnvironment(Map.of(
                            EnvironmentNames.PIPELINES_DIR, pipelines.toString(),
                            EnvironmentNames.METRICS_FILE, metrics.toString()))
                    .withKclWorkers(1, timings);
            if (fanOut) {
                // fan-out workers read through the Kinesis gate, as their task role: grant what fan-out calls
                pipeline.stagePrincipal(STAGE)
                        .ifPresent(role -> pipeline.deployAccess(withFanOutGrants(
                                pipeline.template(), role.logicalId(), inputStreamLogicalId(pipeline.template()))));
            }
            return new KclViewsRun(aws, pipeline, pipeline.kclWorkers(STAGE, fanOut), metrics, names.suffix());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The logical id of the input stream ({@value #INPUT}) in the pipeline's template.
     */
    public static String inputStreamLogicalId(CloudFormationTemplate template) {
        return template.resources().values().stream()
                .filter(r -> r.kind().orElse("").equals("stream")
                        && r.name().orElse("").equals(INPUT))
                .map(CloudFormationTemplate.Resource::logicalId)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no stream " + INPUT + " in " + template.stackName()));
    }

    /**
     * The template with what a fan-out KCL worker calls beyond polling granted to the stage's task
     * role on its input stream: {@code RegisterStreamConsumer} on the stream (KCL looks its consumer
     * up by stream and name, and registers it if it is missing), {@code DescribeStreamConsumer} and
     * {@code SubscribeToShard} on the stream's consumers ({@code <stream ARN>/consumer/*}). The stack grants polling only ({@code KclAccess}: the workers poll
     * in AWS); fan-out runs locally only, with the grants a stack that used it would give.
     */
    public static CloudFormationTemplate withFanOutGrants(
            CloudFormationTemplate template, String taskRoleLogicalId, String streamLogicalId) {
        CloudFormationTemplate granted =
                Grants.grant(template, taskRoleLogicalId, "kinesis:RegisterStreamConsumer", streamLogicalId, null);
        granted = Grants.grant(
                granted, taskRoleLogicalId, "kinesis:DescribeStreamConsumer", streamLogicalId, "/consumer/*");
        return Grants.grant(granted, taskRoleLogicalId, "kinesis:SubscribeToShard", streamLogicalId, "/consumer/*");
    }

    public LocalKclWorkers workers() {
        return workers;
    }

    public LocalPipeline pipeline() {
        return pipeline;
    }

    public List<LedgerEntry> ledger() {
        synchronized (ledger) {
            return List.copyOf(ledger);
        }
    }

    public String inputStream() {
        return pipeline.resources().streams().get(INPUT);
    }

    /**
     * Produces {@code count} page views (every {@code badEvery}-th one malformed JSON, a poison record
     * for the dead-letter queue; 0 for none) and adds them to the ledger.
     */
    public List<LedgerEntry> produce(int count, int badEvery) {
        int first;
        synchronized (ledger) {
            first = produced;
            produced += count;
        }
        List<GeneratedEvent> events = new ArrayList<>(count);
        Instant now = Instant.now();
        for (int n = 0; n < count; n++) {
            int i = first + n;
            String page = String.format("p-%06d", i % PAGES);
            String eventId = String.format("view-%s-%06d", idPrefix, i);
            if (badEvery > 0 && i % badEvery == badEvery - 1) {
                events.add(new GeneratedEvent(
                        eventId,
                        page,
                        ("{\"eventId\":\"" + eventId + "\",\"type\":").getBytes(StandardCharsets.UTF_8),
                        "MALFORMED_JSON"));
                continue;
            }
            ObjectNode event = MAPPER.createObjectNode();
            event.put("eventId", eventId);
            event.put("type", "clickstream.pageview.v1");
            event.put("source", "web-frontend-eu");
            event.put("occurredAt", now.toString());
            String session = String.format("s-%012x", 0xabc000L + i % 7);
            event.put("key", page);
            ObjectNode payload = event.putObject("payload");
            payload.put("sessionId", session);
            payload.put("visitorId", String.format("v-%012x", 0xdef000L + i % 7));
            payload.put("customerEmail", "visitor" + (i % 7) + "@example.com");
            payload.put("ipAddress", "198.51.100." + (i % 250));
            payload.put("userAgent", "Mozilla/5.0 Firefox/133.0");
            payload.put("pageId", page);
            payload.put("url", "/products/" + (i % PAGES));
            payload.put("action", "view");
            payload.put("durationMs", 1000 + i);
            events.add(new GeneratedEvent(eventId, page, event.toString().getBytes(StandardCharsets.UTF_8), null));
        }
        List<LedgerEntry> sent = new Producer(pipeline.producerKinesis(), inputStream()).send(events, n -> {});
        synchronized (ledger) {
            ledger.addAll(sent);
        }
        return sent;
    }

    /**
     * Starts producing page views at {@code rate} a second in a background thread, as {@link
     * #produce} does (same ledger, same poison records), until {@link PacedProduction#stop()}.
     */
    public PacedProduction producePaced(double rate, int badEvery) {
        return PacedProduction.start(
                Pacer.steady(rate), rate, n -> produce(n, badEvery).size());
    }

    /** For each shard of the ledger, its last sequence number. */
    public Map<String, String> lastSequenceByShard() {
        return LedgerEntry.lastSequenceByShard(ledger());
    }

    /** Waits until the workers checkpointed every record produced. */
    public void awaitProcessed(Duration stall) {
        workers.awaitCheckpointed(lastSequenceByShard(), stall);
    }

    /**
     * Reconciles the lake, the table, the aggregate and the dead-letter queue against the ledger: each
     * valid view exactly once in the lake and the table and counted once, each bad record dead
     * lettered.
     */
    public Reconciliation reconcile() {
        StageDefinition stage = pipeline.resources().definition().stage(STAGE);
        return new Reconciler(aws.s3(), aws.dynamoDb(), aws.sqs())
                .reconcile(
                        ledger(),
                        pipeline.resources().bucket(),
                        lakePrefix(),
                        pipeline.resources().tables().get("views-by-id"),
                        pipeline.resources().queueUrls().get("views-dlq"),
                        AggregateCheck.of(stage, pipeline.resources().tables()));
    }

    /** The prefix of the stage's lake ({@code views/}). */
    public String lakePrefix() {
        return Reconciler.lakePrefix(
                pipeline.resources(), pipeline.resources().definition().stage(STAGE));
    }

    /**
     * Whether a reconciliation holds every invariant for this stage: nothing lost, nothing twice,
     * nothing unexplained, every event in the lake and the table or in the dead-letter queue, every
     * valid one counted once in the aggregate.
     */
    public static boolean reconciled(Reconciliation r) {
        return r.reconciled() && r.aggregated() + r.late() == r.table();
    }

    /**
     * Per-key order in the output stream and in the lake: {@code forwarded} and {@code copies} are the
     * stream's; {@code violations} and {@code examples} those of both (the lake's marked {@code lake:}).
     */
    public StreamOrder.Result order() {
        StreamOrder.Result stream = new StreamOrder(aws.kinesis())
                .check(ledger(), pipeline.resources().streams().get(OUTPUT));
        LakeOrder.Result lake = lakeOrder();
        List<String> examples = new ArrayList<>(stream.examples());
        lake.examples().forEach(v -> examples.add("lake: " + v));
        return new StreamOrder.Result(
                stream.forwarded(), stream.copies(), stream.violations() + lake.violations(), List.copyOf(examples));
    }

    /** Per-key order in the lake alone. */
    public LakeOrder.Result lakeOrder() {
        return new LakeOrder(aws.s3()).check(ledger(), pipeline.resources().bucket(), lakePrefix(), 5);
    }

    /** Splits a shard of the input stream in two halves of its hash range (polling workers only). */
    public void splitShard(String shardId) {
        Shard shard = aws.kinesis().listShards(b -> b.streamName(inputStream())).shards().stream()
                .filter(s -> s.shardId().equals(shardId))
                .findFirst()
                .orElseThrow();
        BigInteger start = new BigInteger(shard.hashKeyRange().startingHashKey());
        BigInteger end = new BigInteger(shard.hashKeyRange().endingHashKey());
        String middle = start.add(end).shiftRight(1).toString();
        aws.kinesis()
                .splitShard(
                        b -> b.streamName(inputStream()).shardToSplit(shardId).newStartingHashKey(middle));
        LocalKclWorkers.await(
                "stream " + inputStream() + " active after the split",
                Duration.ofSeconds(30),
                () -> aws.kinesis()
                        .describeStreamSummary(b -> b.streamName(inputStream()))
                        .streamDescriptionSummary()
                        .streamStatusAsString()
                        .equals("ACTIVE"));
    }

    /** The workers' metrics documents (one per batch), in the order they were written. */
    public List<JsonNode> metrics() {
        if (!Files.exists(metricsFile)) {
            return List.of();
        }
        try {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(metricsFile)) {
                if (!line.isBlank()) {
                    lines.add(MAPPER.readTree(line));
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records processed per worker id, from the metrics. */
    public Map<String, Long> recordsByWorker() {
        Map<String, Long> records = new TreeMap<>();
        for (JsonNode m : metrics()) {
            if (m.path("FailedBatches").asLong() == 0) {
                records.merge(m.path("workerId").asText(), m.path("Records").asLong(), Long::sum);
            }
        }
        return records;
    }

    /** Shards each worker processed records of, from the metrics. */
    public Map<String, Set<String>> shardsByWorker() {
        Map<String, Set<String>> shards = new TreeMap<>();
        for (JsonNode m : metrics()) {
            if (m.path("Records").asLong() > 0) {
                shards.computeIfAbsent(m.path("workerId").asText(), k -> new java.util.TreeSet<>())
                        .add(m.path("shardId").asText());
            }
        }
        return shards;
    }

    /**
     * Records per second of each worker while it processed: its records over the time between its
     * first and last batch.
     */
    public Map<String, Double> recordsPerSecondByWorker() {
        Map<String, long[]> spans = new LinkedHashMap<>();
        for (JsonNode m : metrics()) {
            long ts = m.path("_aws").path("Timestamp").asLong();
            long[] s = spans.computeIfAbsent(m.path("workerId").asText(), k -> new long[] {ts, ts, 0});
            s[0] = Math.min(s[0], ts);
            s[1] = Math.max(s[1], ts);
            s[2] += m.path("Records").asLong();
        }
        Map<String, Double> rates = new TreeMap<>();
        spans.forEach((worker, s) -> rates.put(worker, s[2] / Math.max(1.0, (s[1] - s[0]) / 1000.0)));
        return rates;
    }

    /**
     * Seconds from {@code death} to the first batch another worker processed on one of the shards
     * {@code shards} (the dead worker's), or empty if none did.
     */
    public Optional<Double> takeoverSeconds(String deadWorker, Set<String> shards, Instant death) {
        Set<String> wanted = new HashSet<>(shards);
        return metrics().stream()
                .filter(m -> !m.path("workerId").asText().equals(deadWorker))
                .filter(m -> wanted.contains(m.path("shardId").asText()))
                .filter(m -> m.path("Records").asLong() > 0)
                .mapToLong(m -> m.path("_aws").path("Timestamp").asLong())
                .filter(ts -> ts >= death.toEpochMilli())
                .min()
                .stream()
                .mapToObj(ts -> (ts - death.toEpochMilli()) / 1000.0)
                .findFirst();
    }

    /** Kills the workers still running (the checks are done; the resources are thrown away). */
    @Override
    public void close() {
        workers.running().forEach(LocalKclWorker::kill);
        pipeline.close();
    }
}
