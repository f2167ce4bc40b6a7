package dev.sluice.bench.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.AwsClients;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.sink.DynamoDbAggregateSink;
import dev.sluice.aws.sink.DynamoDbReferenceLoader;
import dev.sluice.aws.sink.SqsDeadLetterSink;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.definition.StepType;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import dev.sluice.core.window.PartialAggregate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The baseline: a Kinesis stage handler written by hand the way the AWS documentation and the
 * Powertools for AWS Lambda examples write one — for each record in turn, an idempotency record
 * ({@code PutItem} on an idempotency table keyed by the record's {@code eventId}, on condition that
 * none exists or the one there expired; Powertools' {@code DynamoDBPersistenceStore}), then the
 * record's state write ({@code PutItem} into each table the stage writes); after the loop one
 * {@code PutObject} of the batch's lake records, each window aggregate read and written back
 * ({@code GetItem}, conditional {@code UpdateItem}), stream records in {@code PutRecords} of up to
 * 500, and the records that cannot be processed to SQS ({@code SendMessageBatch} of up to ten).
 * Failures are reported per record ({@code batchItemFailures}), as Powertools' batch utility does.
 *
 * <p>It does the same work as Sluice's handler: the in-memory steps are the same compiled {@link
 * StageChain} (so validation, masking, filtering and aggregation cost the same on both sides and
 * the comparison is of what the handlers do around them), the items and lake lines it writes are the
 * same, and it uses the same SDK clients with the same HTTP client and settings ({@link AwsClients}
 * from the same environment). Unlike Sluice it does not write concurrently (the examples do not),
 * keeps no lake ledger (a bisected or resumed batch writes another object: duplicates in the lake)
 * and does not mark its idempotency records {@code COMPLETED} in a second write as Powertools does —
 * a call per record fewer than the real thing, which makes this baseline cheaper, not dearer.
 *
 * <p>Bench only (load-tests): not a product handler. Its module builds a Lambda zip the way {@code
 * functions/lambda} builds the stage's, which {@code ./sluice bench coldstart} starts beside the stage's.
 */
public final class HandWrittenHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    /** The environment variable naming the idempotency table (bench only). */
    public static final String IDEMPOTENCY_TABLE = "BENCH_IDEMPOTENCY_TABLE";

    /** How long an idempotency record is honoured (Powertools' default: one hour). */
    static final long IDEMPOTENCY_SECONDS = 3600;

    private static final JsonPointer EVENT_ID = JsonPointer.compile("/eventId");

    private final ObjectMapper mapper = StageRuntime.mapper();
    private final StageDefinition stage;
    private final String pipeline;
    private final String stageName;
    private final StageChain chain;
    private final DynamoDbClient dynamoDb;
    private final S3Client s3;
    private final SqsClient sqs;
    private final KinesisClient kinesis;
    private final String idempotencyTable;
    private final Map<String, JsonPointer> stateTables = new LinkedHashMap<>();
    private final Map<String, String> lakes = new LinkedHashMap<>();
    /** Physical stream name → the field holding each record's partition key ({@code null}: the event's key). */
    private final Map<String, JsonPointer> streams = new LinkedHashMap<>();

    private final Map<String, String> aggregateTables = new LinkedHashMap<>();
    private final String bucket;
    private final String queueUrl;
    private final Clock clock = Clock.systemUTC();

    /** For Lambda's runtime: wired from the function's environment, as a deployed handler is. */
    public HandWrittenHandler() {
        this(System.getenv());
    }

    /** Wires the handler from its environment once, as a Lambda function's constructor does. */
    /**
     * The reference caches the stage's enrich steps read: the same cache over the same table read
     * (a Scan, refreshed as the definition says) as Sluice's, so enrichment costs the same on both
     * sides, as the chain does.
     */
    private Map<String, ReferenceCache> references(PipelineDefinition definition, Map<String, String> env) {
        Map<String, ReferenceCache> references = new LinkedHashMap<>();
        stage.steps().stream()
                .filter(step -> step.type() == StepType.ENRICH)
                .map(step -> step.option("reference"))
                .distinct()
                .forEach(name -> {
                    ReferenceDefinition reference = definition.references().get(name);
                    if (reference.table() == null) {
                        throw new IllegalArgumentException(
                                "the hand-written handler reads reference tables only, not " + name + "'s object");
                    }
                    references.put(
                            name,
                            new ReferenceCache(
                                    name,
                                    new DynamoDbReferenceLoader(
                                            dynamoDb,
                                            env.get(EnvironmentNames.table(reference.table())),
                                            reference.key(),
                                            mapper),
                                    reference.maxEntries(),
                                    Duration.ofSeconds(reference.refreshSeconds()),
                                    clock));
                });
        return references;
    }

    public HandWrittenHandler(Map<String, String> env) {
        this.pipeline = env.get(EnvironmentNames.PIPELINE);
        this.stageName = env.get(EnvironmentNames.STAGE);
        SchemaCatalog schemas = env.containsKey(EnvironmentNames.SCHEMAS_DIR)
                ? SchemaCatalog.fromDirectory(Path.of(env.get(EnvironmentNames.SCHEMAS_DIR)), mapper)
                : SchemaCatalog.fromClasspath(HandWrittenHandler.class.getClassLoader(), mapper);
        PipelineDefinition definition =
                new DefinitionLoader(schemas).load(Path.of(env.get(EnvironmentNames.PIPELINE_FILE)));
        this.stage = definition.stage(stageName);
        AwsClients clients = new AwsClients(env);
        this.dynamoDb = clients.dynamoDb();
        this.s3 = clients.s3();
        this.sqs = clients.sqs();
        this.kinesis =
                stage.sinks().stream().anyMatch(s -> s.kind() == SinkDefinition.Kind.STREAM) ? clients.kinesis() : null;
        // the tokenization key, read once at init from Secrets Manager (Powertools' Parameters would cache it)
        Map<String, byte[]> keys = new HashMap<>();
        if (stage.steps().stream().anyMatch(s -> s.type() == StepType.MASK)) {
            var secrets = clients.secretsManager();
            stage.steps().stream().filter(s -> s.type() == StepType.MASK).forEach(step -> {
                String name = step.option("secret") == null ? StageChain.DEFAULT_SECRET : step.option("secret");
                String id = env.get(EnvironmentNames.secretId(name));
                keys.computeIfAbsent(
                        name,
                        n -> secrets.getSecretValue(b -> b.secretId(id))
                                .secretString()
                                .getBytes(StandardCharsets.UTF_8));
            });
        }
        this.chain = StageChain.compile(
                definition,
                stageName,
                new StageServices(schemas, mapper, clock, name -> keys.get(name).clone(), references(definition, env)));
        this.idempotencyTable = env.get(IDEMPOTENCY_TABLE);
        for (SinkDefinition sink : stage.sinks()) {
            switch (sink.kind()) {
                case TABLE ->
                    stateTables.put(
                            env.get(EnvironmentNames.table(sink.table())),
                            FieldPaths.pointer(
                                    definition.tables().get(sink.table()).key()));
                case LAKE ->
                    lakes.put(sink.target(), definition.lakes().get(sink.lake()).prefix());
                case STREAM -> {
                    String field = definition.stream(sink.stream()).partitionKey();
                    streams.put(
                            env.get(EnvironmentNames.stream(sink.stream())),
                            field == null ? null : FieldPaths.pointer(field));
                }
            }
        }
        stage.steps().stream()
                .filter(step -> step.type() == StepType.AGGREGATE)
                .forEach(step -> aggregateTables.put(
                        step.option("name"), env.get(EnvironmentNames.table(step.option("table")))));
        this.bucket = env.get(EnvironmentNames.LAKE_BUCKET);
        this.queueUrl = env.get(EnvironmentNames.queueUrl(stage.failure().deadLetterQueue()));
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        List<InboundRecord> records = new ArrayList<>(event.getRecords().size());
        for (KinesisEvent.KinesisEventRecord r : event.getRecords()) {
            String arn = r.getEventSourceARN();
            ByteBuffer data = r.getKinesis().getData().duplicate();
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            records.add(new InboundRecord(
                    arn.substring(arn.indexOf(":stream/") + ":stream/".length()),
                    Position.of(
                            r.getEventID().substring(0, r.getEventID().indexOf(':')),
                            r.getKinesis().getSequenceNumber()),
                    r.getKinesis().getPartitionKey(),
                    bytes,
                    r.getKinesis().getApproximateArrivalTimestamp().toInstant()));
        }
        BatchOutcome outcome = chain.process(records);
        List<ProcessedEvent> fresh = new ArrayList<>(outcome.accepted().size());
        Set<Position> duplicates = new HashSet<>();
        for (ProcessedEvent processed : outcome.accepted()) {
            try {
                if (!claim(processed)) {
                    duplicates.add(processed.position()); // already processed: skip, as Powertools does
                    continue;
                }
                for (Map.Entry<String, JsonPointer> table : stateTables.entrySet()) {
                    dynamoDb.putItem(b -> b.tableName(table.getKey()).item(item(processed, table.getValue())));
                }
                fresh.add(processed);
            } catch (RuntimeException e) {
                return failedFrom(processed.position());
            }
        }
        try {
            List<PartialAggregate> partials = duplicates.isEmpty()
                    ? outcome.aggregates()
                    : chain.process(records.stream()
                                    .filter(r -> !duplicates.contains(r.position()))
                                    .toList())
                            .aggregates();
            for (PartialAggregate partial : partials) {
                aggregate(partial);
            }
            if (!fresh.isEmpty()) {
                for (String prefix : lakes.values()) {
                    putLakeObject(prefix, fresh);
                }
                for (Map.Entry<String, JsonPointer> stream : streams.entrySet()) {
                    putRecords(stream.getKey(), stream.getValue(), fresh);
                }
            }
            List<DeadLetter> letters = new ArrayList<>(outcome.deadLetters());
            letters.addAll(outcome.sideOutputs());
            sendDeadLetters(letters);
        } catch (RuntimeException e) {
            return failedFrom(records.get(0).position());
        }
        return new StreamsEventResponse(List.of());
    }

    private static StreamsEventResponse failedFrom(Position position) {
        return new StreamsEventResponse(List.of(new StreamsEventResponse.BatchItemFailure(position.sequenceNumber())));
    }

    /** Powertools' idempotency record: {@code false} if one exists and has not expired (a duplicate). */
    private boolean claim(ProcessedEvent event) {
        long now = clock.instant().getEpochSecond();
        try {
            dynamoDb.putItem(b -> b.tableName(idempotencyTable)
                    .item(Map.of(
                            "id", AttributeValue.fromS(pipeline + "." + stageName + "#" + event.eventId()),
                            "expiration", AttributeValue.fromN(Long.toString(now + IDEMPOTENCY_SECONDS)),
                            "status", AttributeValue.fromS("COMPLETED")))
                    .conditionExpression("attribute_not_exists(#id) OR #expiry < :now")
                    .expressionAttributeNames(Map.of("#id", "id", "#expiry", "expiration"))
                    .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(now)))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    /** The state item: the same attributes as Sluice's table sink writes. */
    private static Map<String, AttributeValue> item(ProcessedEvent event, JsonPointer keyField) {
        String key = keyField.equals(EVENT_ID)
                ? event.eventId()
                : event.event().at(keyField).asText();
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", AttributeValue.fromS(key));
        item.put("position", AttributeValue.fromS(event.position().sortable()));
        item.put("shardId", AttributeValue.fromS(event.position().shardId()));
        item.put("sequenceNumber", AttributeValue.fromS(event.position().sequenceNumber()));
        item.put("eventId", AttributeValue.fromS(event.eventId()));
        item.put("occurredAt", AttributeValue.fromS(event.occurredAt().toString()));
        item.put("ingestedAt", AttributeValue.fromS(event.ingestedAt()));
        item.put("event", AttributeValue.fromS(new String(event.json(), StandardCharsets.UTF_8)));
        return item;
    }

    /** Read, add, write back on condition that nobody wrote in between (optimistic locking). */
    private void aggregate(PartialAggregate partial) {
        String table = aggregateTables.get(partial.aggregate());
        Map<String, AttributeValue> key = Map.of("pk", AttributeValue.fromS(DynamoDbAggregateSink.itemKey(partial)));
        for (int attempt = 1; ; attempt++) {
            Map<String, AttributeValue> item = dynamoDb.getItem(
                            b -> b.tableName(table).key(key).consistentRead(true))
                    .item();
            boolean exists = item != null && !item.isEmpty();
            long version = exists ? Long.parseLong(item.get("version").n()) : 0;
            Map<String, AttributeValue> values = new HashMap<>();
            List<String> sets = new ArrayList<>();
            set(sets, values, "aggregate", AttributeValue.fromS(partial.aggregate()));
            set(sets, values, "key", AttributeValue.fromS(partial.key()));
            set(
                    sets,
                    values,
                    "windowStart",
                    AttributeValue.fromS(partial.windowStart().toString()));
            set(
                    sets,
                    values,
                    "windowEnd",
                    AttributeValue.fromS(partial.windowEnd().toString()));
            long count =
                    partial.count() + (exists ? Long.parseLong(item.get("count").n()) : 0);
            set(sets, values, "count", AttributeValue.fromN(Long.toString(count)));
            combine(sets, values, exists ? item : Map.of(), "sum", partial.sum(), BigDecimal::add);
            combine(sets, values, exists ? item : Map.of(), "min", partial.min(), BigDecimal::min);
            combine(sets, values, exists ? item : Map.of(), "max", partial.max(), BigDecimal::max);
            set(sets, values, "version", AttributeValue.fromN(Long.toString(version + 1)));
            set(sets, values, "updatedAt", AttributeValue.fromS(clock.instant().toString()));
            Map<String, String> names = new HashMap<>();
            for (int i = 0; i < sets.size(); i++) {
                names.put("#a" + i, sets.get(i));
            }
            StringBuilder update = new StringBuilder("SET ");
            for (int i = 0; i < sets.size(); i++) {
                update.append(i == 0 ? "" : ", ")
                        .append("#a")
                        .append(i)
                        .append(" = :a")
                        .append(i);
            }
            String condition;
            if (exists) {
                names.put("#v", "version");
                values.put(":expected", AttributeValue.fromN(Long.toString(version)));
                condition = "#v = :expected";
            } else {
                names.put("#pk", "pk");
                condition = "attribute_not_exists(#pk)";
            }
            try {
                dynamoDb.updateItem(b -> b.tableName(table)
                        .key(key)
                        .updateExpression(update.toString())
                        .conditionExpression(condition)
                        .expressionAttributeNames(names)
                        .expressionAttributeValues(values));
                return;
            } catch (ConditionalCheckFailedException e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static void set(List<String> sets, Map<String, AttributeValue> values, String name, AttributeValue value) {
        values.put(":a" + sets.size(), value);
        sets.add(name);
    }

    private static void combine(
            List<String> sets,
            Map<String, AttributeValue> values,
            Map<String, AttributeValue> item,
            String name,
            BigDecimal partial,
            java.util.function.BinaryOperator<BigDecimal> with) {
        if (partial != null) {
            BigDecimal result = item.containsKey(name)
                    ? with.apply(new BigDecimal(item.get(name).n()), partial)
                    : partial;
            set(sets, values, name, AttributeValue.fromN(result.toPlainString()));
        }
    }

    /** One gzipped NDJSON object per batch, keyed by the batch's first record. */
    private void putLakeObject(String prefix, List<ProcessedEvent> events) {
        ProcessedEvent first = events.get(0);
        ZonedDateTime at = first.occurredAt().atZone(ZoneOffset.UTC);
        String key = String.format(
                "%sdt=%04d-%02d-%02d/hr=%02d/%s-%s-%s.jsonl.gz",
                prefix,
                at.getYear(),
                at.getMonthValue(),
                at.getDayOfMonth(),
                at.getHour(),
                first.source().stream(),
                first.position().shardId(),
                first.position().sortable());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(events.size() * 256);
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            for (ProcessedEvent event : events) {
                gzip.write(event.json());
                gzip.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        s3.putObject(
                b -> b.bucket(bucket)
                        .key(key)
                        .contentType("application/x-ndjson")
                        .contentEncoding("gzip"),
                RequestBody.fromBytes(bytes.toByteArray()));
    }

    private void putRecords(String stream, JsonPointer partitionKey, List<ProcessedEvent> events) {
        for (int from = 0; from < events.size(); from += 500) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (ProcessedEvent event : events.subList(from, Math.min(events.size(), from + 500))) {
                entries.add(PutRecordsRequestEntry.builder()
                        .partitionKey(
                                partitionKey == null
                                        ? event.key()
                                        : event.event().at(partitionKey).asText())
                        .data(SdkBytes.fromByteArrayUnsafe(event.json()))
                        .build());
            }
            kinesis.putRecords(b -> b.streamName(stream).records(entries));
        }
    }

    private void sendDeadLetters(List<DeadLetter> letters) {
        for (int from = 0; from < letters.size(); from += 10) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            for (DeadLetter letter : letters.subList(from, Math.min(letters.size(), from + 10))) {
                InboundRecord source = letter.source();
                ObjectNode body = mapper.createObjectNode()
                        .put("reasonCode", letter.code().name())
                        .put("detail", letter.detail())
                        .put("stream", source.stream())
                        .put("shardId", source.position().shardId())
                        .put("sequenceNumber", source.position().sequenceNumber())
                        .put("partitionKey", source.partitionKey())
                        .put("payload", new String(source.data(), StandardCharsets.UTF_8));
                entries.add(SendMessageBatchRequestEntry.builder()
                        .id(Integer.toString(entries.size()))
                        .messageBody(body.toString())
                        .messageAttributes(Map.of(
                                SqsDeadLetterSink.REASON_CODE_ATTRIBUTE,
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue(letter.code().name())
                                        .build()))
                        .build());
            }
            sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
        }
    }
}
