package dev.sluice.bench.handler;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.stage.StageChain;
import dev.sluice.generators.ClickstreamGenerator;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.generators.PaymentGenerator;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What the handler benchmark feeds a stage: Lambda's Kinesis events of the stage's input stream,
 * at the definition's batch size, built from the generators (payments or page views, by the input
 * stream's schema; 0.5 % invalid on purpose), and the function environment each handler is wired
 * from — the variables the CDK stack sets, every resource named with the handler's own prefix so
 * that the two handlers never see each other's items, all pointed at the stub. Public for {@code
 * ./sluice bench coldstart}, which starts both handlers' zips against one stub with these environments.
 */
public final class HandlerWorkload {

    /** Fixed, so that every run measures the same bytes. */
    static final long SEED = 20_240_601L;

    static final double INVALID_SHARE = 0.005;

    private static final Instant START = Instant.parse("2025-03-01T08:00:00Z");

    private HandlerWorkload() {}

    /**
     * The Kinesis events and how many invalid records each holds.
     *
     * @param invalid per event, the records the generator made invalid on purpose
     */
    record Batches(List<KinesisEvent> events, int[] invalid) {

        /** The first event with an invalid record (0 if none has one). */
        int firstWithInvalid() {
            for (int i = 0; i < invalid.length; i++) {
                if (invalid[i] > 0) {
                    return i;
                }
            }
            return 0;
        }
    }

    /** {@code batches} Kinesis events of the definition's batch size of the stage's input, one shard. */
    static Batches events(PipelineDefinition pipeline, StageDefinition stage, int batches) {
        String schema = pipeline.streams().get(stage.input()).schema();
        int batchSize = stage.batching().batchSize();
        String arn = "arn:aws:kinesis:" + AwsStub.REGION + ":" + AwsStub.ACCOUNT + ":stream/" + stage.input();
        String shard = "shardId-000000000000";
        PaymentGenerator payments = new PaymentGenerator(SEED, 50_000, INVALID_SHARE, START);
        ClickstreamGenerator clicks = new ClickstreamGenerator(SEED, 2_000, PAGES, INVALID_SHARE, START);
        boolean isPayments = schema.startsWith("payments.");
        if (!isPayments && !schema.startsWith("clickstream.")) {
            throw new IllegalArgumentException(
                    "no generator for schema " + schema + " (the handler bench knows payments and clickstream)");
        }
        List<KinesisEvent> events = new ArrayList<>(batches);
        int[] invalid = new int[batches];
        long sequence = 0;
        Instant arrival = START;
        for (int b = 0; b < batches; b++) {
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>(batchSize);
            for (int i = 0; i < batchSize; i++) {
                GeneratedEvent event = isPayments ? payments.next() : clicks.next();
                if (!event.valid()) {
                    invalid[b]++;
                }
                arrival = arrival.plusMillis(isPayments ? 250 : 40);
                KinesisEvent.Record kinesis = new KinesisEvent.Record();
                kinesis.setData(ByteBuffer.wrap(event.data()));
                kinesis.setPartitionKey(event.partitionKey());
                // Kinesis's 56-digit sequence numbers
                String sequenceNumber = String.format("49%054d", 1_000_000_000L + sequence++);
                kinesis.setSequenceNumber(sequenceNumber);
                kinesis.setApproximateArrivalTimestamp(Date.from(arrival));
                kinesis.setKinesisSchemaVersion("1.0");
                KinesisEvent.KinesisEventRecord record = new KinesisEvent.KinesisEventRecord();
                record.setKinesis(kinesis);
                record.setEventSource("aws:kinesis");
                record.setEventName("aws:kinesis:record");
                record.setEventVersion("1.0");
                record.setEventID(shard + ":" + sequenceNumber);
                record.setEventSourceARN(arn);
                record.setAwsRegion(AwsStub.REGION);
                record.setInvokeIdentityArn("arn:aws:iam::" + AwsStub.ACCOUNT + ":role/bench-stage");
                records.add(record);
            }
            KinesisEvent event = new KinesisEvent();
            event.setRecords(records);
            events.add(event);
        }
        return new Batches(List.copyOf(events), invalid);
    }

    /** The secrets the stage's mask steps read. */
    static TreeSet<String> secrets(StageDefinition stage) {
        TreeSet<String> names = new TreeSet<>();
        stage.steps().stream()
                .filter(step -> step.type() == StepType.MASK)
                .forEach(step ->
                        names.add(step.option("secret") == null ? StageChain.DEFAULT_SECRET : step.option("secret")));
        return names;
    }

    /**
     * Gives the stub what these environments' handlers read or rely on: the idempotency table's key
     * ({@code id}, Powertools' default), the stage's secrets (a throw-away 64-character key) and each
     * stream's shard count from the definition (an aggregating stream sink packs per shard).
     */
    public static void provision(
            AwsStub stub, PipelineDefinition pipeline, StageDefinition stage, List<Map<String, String>> environments) {
        for (Map<String, String> env : environments) {
            pipeline.streams().forEach((name, stream) -> {
                String physical = env.get(EnvironmentNames.stream(name));
                if (physical != null && stream.shards() != null && stream.shards() > 0) {
                    stub.shards(physical, stream.shards());
                }
            });
        }
        provision(stub, stage, environments);
        for (Map<String, String> env : environments) {
            references(stub, pipeline, stage, env);
        }
    }

    /** Pages of the clickstream generator's shop (ids {@code p-000000} to {@code p-005000}). */
    static final int PAGES = 5_000;

    /**
     * Seeds the reference tables the stage's enrich steps read: a page catalogue keyed by {@code
     * pageId} gets an entry for every page the generator names (category and title); other
     * references are left empty (their enrich steps take their {@code onMiss} path).
     */
    static void references(AwsStub stub, PipelineDefinition pipeline, StageDefinition stage, Map<String, String> env) {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        stage.steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> pipeline.references().get(step.option("reference")))
                .filter(r -> r != null && r.table() != null)
                .distinct()
                .forEach(reference -> {
                    String table = env.get(EnvironmentNames.table(reference.table()));
                    stub.keySchema(table, reference.key());
                    if (!reference.key().equals("pageId")) {
                        return;
                    }
                    String[] categories = {"home", "catalogue", "product", "basket", "checkout"};
                    List<com.fasterxml.jackson.databind.node.ObjectNode> items = new ArrayList<>();
                    for (int page = 0; page <= PAGES; page++) {
                        var item = json.createObjectNode();
                        String id = String.format(java.util.Locale.ROOT, "p-%06d", page);
                        item.putObject("pageId").put("S", id);
                        item.putObject("category").put("S", categories[page % categories.length]);
                        item.putObject("title").put("S", "Page " + page);
                        items.add(item);
                    }
                    stub.seed(table, items);
                });
    }

    /** {@link #provision(AwsStub, PipelineDefinition, StageDefinition, List)} without the streams' shards (one each). */
    static void provision(AwsStub stub, StageDefinition stage, List<Map<String, String>> environments) {
        for (Map<String, String> env : environments) {
            stub.keySchema(env.get(HandWrittenHandler.IDEMPOTENCY_TABLE), "id");
            for (String secret : secrets(stage)) {
                stub.secret(env.get(EnvironmentNames.secretId(secret)), "k".repeat(64));
            }
        }
    }

    /** A handler's environment: every physical name starts with {@code prefix}. */
    public static Map<String, String> environment(
            String prefix, PipelineDefinition pipeline, String stageName, Path pipelineFile, URI endpoint) {
        StageDefinition stage = pipeline.stage(stageName);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_REGION", AwsStub.REGION);
        env.put("AWS_ACCESS_KEY_ID", "AKIDSLUICEBENCH");
        env.put("AWS_SECRET_ACCESS_KEY", "sluice-bench-not-a-secret");
        env.put("AWS_ENDPOINT_URL", endpoint.toString());
        env.put(EnvironmentNames.PIPELINE, pipeline.pipeline());
        env.put(EnvironmentNames.STAGE, stageName);
        env.put(EnvironmentNames.PIPELINE_FILE, pipelineFile.toString());
        String root = System.getProperty("sluice.root");
        if (root != null && !root.isBlank() && Files.isDirectory(Path.of(root, "schemas"))) {
            env.put(EnvironmentNames.SCHEMAS_DIR, Path.of(root, "schemas").toString());
        }
        // the batch's metric line goes where Lambda's standard output would (discarded here)
        env.put(EnvironmentNames.METRICS_FILE, "/dev/null");
        env.put(EnvironmentNames.LAKE_BUCKET, prefix + pipeline.pipeline() + "-lake");
        env.put(EnvironmentNames.LEDGER_TABLE, prefix + pipeline.pipeline() + "-lake-ledger");
        pipeline.tables().keySet().forEach(t -> env.put(EnvironmentNames.table(t), prefix + t));
        pipeline.streams().keySet().forEach(s -> env.put(EnvironmentNames.stream(s), prefix + s));
        pipeline.queues()
                .keySet()
                .forEach(q -> env.put(
                        EnvironmentNames.queueUrl(q),
                        "https://sqs." + AwsStub.REGION + ".amazonaws.com/" + AwsStub.ACCOUNT + "/" + prefix + q));
        secrets(stage).forEach(s -> env.put(EnvironmentNames.secretId(s), prefix + s));
        env.put(HandWrittenHandler.IDEMPOTENCY_TABLE, prefix + pipeline.pipeline() + "-idempotency");
        return env;
    }
}
