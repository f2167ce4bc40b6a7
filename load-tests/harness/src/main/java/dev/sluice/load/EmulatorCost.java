package dev.sluice.load;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.emulators.LocalAws;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * What the local emulators cost in CPU for the work a pipeline gives them, measured on the emulators
 * alone (no access gate, no Sluice code in the path): kinesis-mock's CPU time per kilobyte written
 * with {@code PutRecords} and read with {@code GetRecords}, for event-sized records and for KPL-sized
 * aggregates, and dynalite's per conditional {@code PutItem}. Each figure is the emulator process's
 * own CPU time (the operating system's accounting) over the operation, divided by the bytes or items.
 *
 * <p>From these, {@link #ceiling} gives the most events a second one emulator process can carry for a
 * pipeline: kinesis-mock is one Node.js thread, so it can never use more than one core, however many
 * the machine has.
 */
public final class EmulatorCost {

    /** The size of a KPL aggregate the producers and the hop write (about 50 KB). */
    public static final int AGGREGATE_BYTES = 50 * 1024;

    /**
     * The measured costs.
     *
     * @param recordBytes the size of the event-sized records
     * @param putMicrosPerKb kinesis-mock CPU per KB put as event-sized records (500 per PutRecords)
     * @param aggregatePutMicrosPerKb kinesis-mock CPU per KB put as {@link #AGGREGATE_BYTES} records
     * @param getMicrosPerKb kinesis-mock CPU per KB read back with GetRecords (both kinds together)
     * @param conditionalPutMicros dynalite CPU per conditional PutItem of an event-id item
     * @param kinesisMegabytes megabytes put of each kind
     * @param items PutItem calls made
     */
    public record Costs(
            int recordBytes,
            double putMicrosPerKb,
            double aggregatePutMicrosPerKb,
            double getMicrosPerKb,
            double conditionalPutMicros,
            int kinesisMegabytes,
            int items) {}

    /**
     * How a pipeline's events pass through the emulators: each stream is written once per event and
     * read once per stage that consumes it; each table sink takes one write per event (a stage's
     * deduplicate table is one of its sinks; aggregates write per batch and key, not per event, and
     * are left out).
     *
     * @param pipeline the pipeline's name
     * @param passes stream name → (writes + reads) per event
     * @param tableWrites DynamoDB item writes per event
     */
    public record Passes(String pipeline, Map<String, Integer> passes, int tableWrites) {
        public Passes {
            passes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(passes));
        }

        /** Writes and reads per event over every stream. */
        public int total() {
            return passes.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** The passes of a pipeline's definition. */
        public static Passes of(PipelineDefinition pipeline) {
            Map<String, Integer> passes = new LinkedHashMap<>();
            for (String stream : pipeline.streams().keySet()) {
                int reads = 0;
                for (StageDefinition stage : pipeline.stages().values()) {
                    if (stream.equals(stage.input())) {
                        reads++;
                    }
                }
                boolean written = reads > 0
                        || pipeline.stages().values().stream()
                                .flatMap(s -> s.sinks().stream())
                                .map(SinkDefinition::stream)
                                .anyMatch(stream::equals);
                passes.put(stream, (written ? 1 : 0) + reads);
            }
            int tableWrites = (int) pipeline.stages().values().stream()
                    .flatMap(s -> s.sinks().stream())
                    .filter(sink -> sink.table() != null)
                    .count();
            return new Passes(pipeline.pipeline(), passes, tableWrites);
        }
    }

    private final LocalAws aws;

    /** @param aws a local stack without access gates (the emulators' own endpoints) */
    public EmulatorCost(LocalAws aws) {
        if (aws.iamEnforced()) {
            throw new IllegalArgumentException(
                    "the emulators' cost is measured on their own endpoints: start the stack without access gates");
        }
        this.aws = aws;
    }

    /** Measures with {@code megabytes} of records of each kind and {@code items} PutItem calls. */
    public Costs measure(int recordBytes, int megabytes, int items) {
        ProcessHandle kinesisMock = process("kinesis-local");
        ProcessHandle dynalite = process("dynalite");
        Random random = new Random(42);
        String small = stream("small");
        String large = stream("aggregates");
        long bytes = (long) megabytes * 1_000_000L;
        // unmeasured first: Node's JIT compiles the emulators' hot paths
        String warm = stream("warm-up");
        put(warm, recordBytes, 1_000_000L, random);
        put(warm, AGGREGATE_BYTES, 1_000_000L, random);
        readAll(warm);
        conditionalPuts(dynalite, Math.max(100, items / 10));
        long before = cpuNanos(kinesisMock);
        put(small, recordBytes, bytes, random);
        long afterSmall = cpuNanos(kinesisMock);
        put(large, AGGREGATE_BYTES, bytes, random);
        long afterLarge = cpuNanos(kinesisMock);
        long read = readAll(small) + readAll(large);
        long afterRead = cpuNanos(kinesisMock);
        double conditional = conditionalPuts(dynalite, items);
        return new Costs(
                recordBytes,
                micros(afterSmall - before) / kb(bytes),
                micros(afterLarge - afterSmall) / kb(bytes),
                micros(afterRead - afterLarge) / kb(read),
                conditional,
                megabytes,
                items);
    }

    /**
     * The most events a second one kinesis-mock process carries for a pipeline whose events are
     * {@code eventBytes} long, at full use of its one thread: 1 s of CPU ÷ (CPU per event over every
     * pass). Writes are priced as aggregates when {@code aggregated}, reads at the measured rate.
     */
    public static double kinesisCeiling(Costs costs, Passes passes, double eventBytes, boolean aggregated) {
        double putPerKb = aggregated ? costs.aggregatePutMicrosPerKb() : costs.putMicrosPerKb();
        double kb = eventBytes / 1000.0;
        double micros = 0;
        for (int n : passes.passes().values()) {
            if (n > 0) {
                micros += kb * putPerKb + (n - 1) * kb * costs.getMicrosPerKb();
            }
        }
        return micros <= 0 ? Double.POSITIVE_INFINITY : 1_000_000.0 / micros;
    }

    /**
     * The most events a second one dynalite process carries for a pipeline's per-event table writes,
     * at full use of its one thread (infinite for a pipeline without any).
     */
    public static double dynamoDbCeiling(Costs costs, Passes passes) {
        double micros = passes.tableWrites() * costs.conditionalPutMicros();
        return micros <= 0 ? Double.POSITIVE_INFINITY : 1_000_000.0 / micros;
    }

    private String stream(String what) {
        String name = "sluice-emulator-cost-" + what + "-" + Long.toHexString(System.nanoTime());
        aws.kinesis().createStream(b -> b.streamName(name).shardCount(1));
        aws.kinesisWaiter().waitUntilStreamExists(b -> b.streamName(name));
        return name;
    }

    private void put(String stream, int recordBytes, long bytes, Random random) {
        byte[] data = new byte[recordBytes];
        random.nextBytes(data);
        SdkBytes payload = SdkBytes.fromByteArrayUnsafe(data);
        // within one PutRecords call's limits: 500 records, 5 MB
        int perCall = (int) Math.max(1, Math.min(500, 4_000_000L / recordBytes));
        long count = Math.max(1, bytes / recordBytes);
        long sent = 0;
        while (sent < count) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < perCall && sent < count; i++, sent++) {
                entries.add(PutRecordsRequestEntry.builder()
                        .partitionKey("k" + sent)
                        .data(payload)
                        .build());
            }
            List<PutRecordsRequestEntry> batch = entries;
            int failed = aws.kinesis()
                    .putRecords(b -> b.streamName(stream).records(batch))
                    .failedRecordCount();
            if (failed > 0) {
                throw new IllegalStateException(failed + " records refused by kinesis-mock");
            }
        }
    }

    private long readAll(String stream) {
        return dev.sluice.verify.reconcile.StreamRecords.readAll(aws.kinesis(), stream).stream()
                .mapToLong(r -> r.data().length)
                .sum();
    }

    private double conditionalPuts(ProcessHandle dynalite, int items) {
        String table = "sluice-emulator-cost-" + Long.toHexString(System.nanoTime());
        aws.dynamoDb()
                .createTable(b -> b.tableName(table)
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .attributeDefinitions(AttributeDefinition.builder()
                                .attributeName("pk")
                                .attributeType(ScalarAttributeType.S)
                                .build())
                        .keySchema(KeySchemaElement.builder()
                                .attributeName("pk")
                                .keyType(KeyType.HASH)
                                .build()));
        aws.dynamoDbWaiter().waitUntilTableExists(b -> b.tableName(table));
        IntFunction<Map<String, AttributeValue>> item = i -> Map.of(
                "pk", AttributeValue.fromS("evt-" + i + "-0f1e2d3c4b5a69788796a5b4c3d2e1f0"),
                "position", AttributeValue.fromS("shardId-000000000000/" + String.format("%060d", i)),
                "expiresAt", AttributeValue.fromN(Long.toString(1_800_000_000L + i)));
        long before = cpuNanos(dynalite);
        for (int i = 0; i < items; i++) {
            Map<String, AttributeValue> it = item.apply(i);
            aws.dynamoDb().putItem(b -> b.tableName(table).item(it).conditionExpression("attribute_not_exists(pk)"));
        }
        return micros(cpuNanos(dynalite) - before) / items;
    }

    private ProcessHandle process(String commandPart) {
        return aws.childProcesses().stream()
                .flatMap(p -> java.util.stream.Stream.concat(java.util.stream.Stream.of(p), p.descendants()))
                .filter(p -> p.info().commandLine().orElse("").contains(commandPart))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("no emulator process whose command contains " + commandPart));
    }

    private static long cpuNanos(ProcessHandle process) {
        return process.info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException("the OS gives no CPU time of pid " + process.pid()));
    }

    private static double micros(long nanos) {
        return nanos / 1_000.0;
    }

    private static double kb(long bytes) {
        return bytes / 1_000.0;
    }
}
