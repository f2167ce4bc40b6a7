package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DefinitionLoaderTest {

    private final DefinitionLoader loader = TestFiles.loader();

    private static final String GOOD = """
            pipeline: shop
            streams:
              orders-raw:
                shards: 2
                schema: payments.transaction.v1
            lakes:
              orders-lake:
                prefix: orders/
            tables:
              orders-by-id:
                key: eventId
            queues:
              orders-dlq: {}
            stages:
              land:
                input: orders-raw
                steps:
                  - validate
                sinks:
                  - lake: orders-lake
                  - table: orders-by-id
                batching:
                  batchSize: 50
                failure:
                  deadLetterQueue: orders-dlq
            access:
              analyst: [orders-by-id]
            """;

    @Test
    void everyRepositoryPipelineLoads() {
        List<PipelineDefinition> all = loader.loadAll(TestFiles.root().resolve("pipelines"));

        assertThat(all).extracting(PipelineDefinition::pipeline).contains("payments");
    }

    @Test
    void paymentsDefinitionIsReadIntoTypedRecords() {
        PipelineDefinition payments = loader.load(TestFiles.root().resolve("pipelines/payments.yaml"));

        StreamDefinition raw = payments.stream("payments-raw");
        assertThat(raw.shards()).isEqualTo(2);
        assertThat(raw.classification()).isEqualTo(Classification.RESTRICTED);
        assertThat(raw.schema()).isEqualTo("payments.transaction.v1");
        StageDefinition validate = payments.stage("validate");
        assertThat(validate.consumer()).isEqualTo(ConsumerType.LAMBDA);
        assertThat(validate.steps())
                .extracting(StepDefinition::type)
                .containsExactly(StepType.VALIDATE, StepType.MASK, StepType.AGGREGATE);
        assertThat(validate.sinks())
                .extracting(SinkDefinition::kind, SinkDefinition::target)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(SinkDefinition.Kind.LAKE, "payments-lake"),
                        org.assertj.core.groups.Tuple.tuple(SinkDefinition.Kind.TABLE, "payments-by-id"));
        assertThat(validate.batching().batchSize()).isEqualTo(500);
        assertThat(validate.batching().batchingWindowSeconds()).isEqualTo(1);
        assertThat(validate.failure().deadLetterQueue()).isEqualTo("payments-dlq");
        assertThat(validate.failure().maxRetryAttempts()).isEqualTo(3);
        assertThat(payments.personas()).containsKey(Persona.SOURCE_OPERATOR);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown table     | orders-by-key | shop.yaml:24: stages.land.deduplicate: no table named 'orders-by-key' (tables: [orders-by-id, orders-by-kind])
            not keyed by id  | orders-by-kind | shop.yaml:26: stages.land.deduplicate: table 'orders-by-kind' is keyed by 'kind'; recognising re-sends needs a table keyed by eventId
            not a sink        | orders-by-id2 | shop.yaml:26: stages.land.deduplicate: table 'orders-by-id2' must also be one of the stage's sinks ('- table: orders-by-id2')
            """)
    void deduplicationNeedsOneOfTheStagesTablesKeyedByEventId(String problem, String table, String message) {
        String text = GOOD.replace(
                        "  orders-by-id:\n    key: eventId\n",
                        "  orders-by-id:\n    key: eventId\n  orders-by-kind:\n"
                                + "    key: kind\n  orders-by-id2:\n    key: eventId\n")
                .replace("    batching:\n", "    deduplicate: " + table + "\n    batching:\n");
        if (table.equals("orders-by-key")) {
            text = text.replace("  orders-by-id2:\n    key: eventId\n", "");
        }
        String definition = text;

        assertThatThrownBy(() -> loader.parse("shop.yaml", definition)).hasMessage(message);
    }

    @Test
    void deduplicatingTableIsRead() {
        PipelineDefinition payments = loader.load(TestFiles.root().resolve("pipelines/payments.yaml"));

        assertThat(payments.stage("validate").deduplicate()).isEqualTo("payments-by-id");
        assertThat(loader.parse("shop.yaml", GOOD).stage("land").deduplicate()).isNull();
    }

    @Test
    void omittedSettingsTakeLambdaDefaults() {
        PipelineDefinition shop = loader.parse("shop.yaml", GOOD);

        StageDefinition land = shop.stage("land");
        assertThat(land.batching().batchSize()).isEqualTo(50);
        assertThat(land.batching().batchingWindowSeconds()).isZero();
        assertThat(land.batching().parallelizationFactor()).isEqualTo(1);
        assertThat(land.batching().startingPosition()).isEqualTo(StartingPosition.TRIM_HORIZON);
        assertThat(land.failure().maxRetryAttempts()).isEqualTo(3);
        assertThat(land.failure().maxRecordAgeSeconds()).isEqualTo(-1);
        assertThat(land.failure().bisectOnError()).isTrue();
        assertThat(land.handler()).isEqualTo(StageDefinition.DEFAULT_HANDLER);
        assertThat(shop.stream("orders-raw").retentionHours()).isEqualTo(24);
        assertThat(shop.queues().get("orders-dlq").retentionDays()).isEqualTo(14);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown field             | 'batchSize: 50'               | 'batchSise: 50'                 | shop.yaml:23: stages.land.batching.batchSise: unknown field 'batchSise' (known: batchSize, batchingWindowSeconds, parallelizationFactor, startingPosition, startingPositionTimestamp)
            missing stream reference  | 'input: orders-raw'           | 'input: orders-typo'            | shop.yaml:16: stages.land.input: no stream named 'orders-typo' (streams: [orders-raw])
            non-positive batch size   | 'batchSize: 50'               | 'batchSize: 0'                  | shop.yaml:23: stages.land.batching.batchSize: must be positive, got 0
            unknown schema            | 'schema: payments.transaction.v1' | 'schema: payments.refund.v9' | shop.yaml:5: streams.orders-raw.schema: unknown schema 'payments.refund.v9' (no schemas/payments.refund.v9.json)
            missing sink reference    | '- table: orders-by-id'       | '- table: orders-by-key'        | shop.yaml:21: stages.land.sinks[1].table: no table named 'orders-by-key' (tables: [orders-by-id])
            missing dead-letter queue | 'deadLetterQueue: orders-dlq' | 'deadLetterQueue: nowhere'      | shop.yaml:25: stages.land.failure.deadLetterQueue: no queue named 'nowhere' (queues: [orders-dlq])
            unknown step              | '- validate'                  | '- validat'                     | shop.yaml:18: stages.land.steps[0]: unknown step 'validat' (known steps: [aggregate, enrich, filter, mask, route, validate])
            unknown persona           | 'analyst: [orders-by-id]'     | 'auditor: [orders-by-id]'       | shop.yaml:27: access.auditor: must be one of admin, pipeline-developer, source-operator, analyst, viewer; got 'auditor'
            access to unknown target  | 'analyst: [orders-by-id]'     | 'analyst: [orders-by-ids]'      | shop.yaml:27: access.analyst[0]: no stream, lake, table or queue named 'orders-by-ids'
            wrong type                | 'shards: 2'                   | 'shards: two'                   | shop.yaml:4: streams.orders-raw.shards: cannot read 'two' as a whole number
            """)
    void badDefinitionFailsWithOneMessageNamingFileLineAndField(
            String problem, String good, String bad, String message) {
        String text = GOOD.replace(good, bad);
        assertThat(text).as("fixture edit for %s", problem).isNotEqualTo(GOOD);

        assertThatThrownBy(() -> loader.parse("shop.yaml", text))
                .isInstanceOf(DefinitionException.class)
                .hasMessage(message);
    }

    @Test
    void atTimestampNeedsAReadableTimestamp() {
        String missing = GOOD.replace("batchSize: 50", "batchSize: 50\n      startingPosition: AT_TIMESTAMP");
        String unreadable = missing.replace(
                "startingPosition: AT_TIMESTAMP",
                "startingPosition: AT_TIMESTAMP\n      startingPositionTimestamp: yesterday");
        String good = missing.replace(
                "startingPosition: AT_TIMESTAMP",
                "startingPosition: AT_TIMESTAMP\n      startingPositionTimestamp: 2026-11-30T06:00:00+01:00");

        assertThatThrownBy(() -> loader.parse("shop.yaml", missing))
                .hasMessage("shop.yaml:24: stages.land.batching.startingPosition: AT_TIMESTAMP needs"
                        + " startingPositionTimestamp, e.g. 2026-11-30T00:00:00Z");
        assertThatThrownBy(() -> loader.parse("shop.yaml", unreadable))
                .hasMessage("shop.yaml:25: stages.land.batching.startingPositionTimestamp: 'yesterday' is not an RFC"
                        + " 3339 date-time with an offset");
        assertThat(loader.parse("shop.yaml", good).stage("land").batching().startingInstant())
                .isEqualTo(java.time.Instant.parse("2026-11-30T05:00:00Z"));
    }

    @Test
    void onlyAStreamSinkMayAggregate() {
        String lakeAggregates =
                GOOD.replace("      - lake: orders-lake\n", "      - lake: orders-lake\n        aggregate: true\n");
        assertThat(lakeAggregates).isNotEqualTo(GOOD);

        assertThatThrownBy(() -> loader.parse("shop.yaml", lakeAggregates))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("stages.land.sinks[0].aggregate")
                .hasMessageContaining("only a '- stream: NAME' sink can aggregate");
        assertThat(loader.parse("shop.yaml", GOOD).stage("land").sinks()).noneMatch(SinkDefinition::aggregates);
    }

    @Test
    void parallelBatchesPerShardAreRefusedOnAStageWritingTheLake() {
        String parallel = GOOD.replace("batchSize: 50", "batchSize: 50\n      parallelizationFactor: 2");
        String parallelWithoutLake = parallel.replace("      - lake: orders-lake\n", "");
        assertThat(parallelWithoutLake).isNotEqualTo(parallel);

        assertThatThrownBy(() -> loader.parse("shop.yaml", parallel))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:24: stages.land.batching.parallelizationFactor: must be 1 on a stage with a"
                        + " lake sink and no deduplicate table: the lake's per-shard commit ledger needs one writer"
                        + " per shard, got 2; name a deduplicate table (keyed by eventId) to record each event's"
                        + " lake object on its item instead");
        assertThat(loader.parse("shop.yaml", parallelWithoutLake)
                        .stage("land")
                        .batching()
                        .parallelizationFactor())
                .isEqualTo(2);
    }

    @Test
    void parallelBatchesPerShardWriteTheLakeWhenTheStageDeduplicates() {
        String parallel = GOOD.replace("batchSize: 50", "batchSize: 50\n      parallelizationFactor: 10")
                .replace("    batching:\n", "    deduplicate: orders-by-id\n    batching:\n");
        assertThat(parallel).contains("deduplicate: orders-by-id");

        assertThat(loader.parse("shop.yaml", parallel).stage("land").batching().parallelizationFactor())
                .isEqualTo(10);
    }

    @Test
    void aStageThatDeduplicatesWritesOneLakeAtMost() {
        String twoLakes = GOOD.replace(
                        "    prefix: orders/\n", "    prefix: orders/\n  copy-lake:\n    prefix: copy/\n")
                .replace("      - lake: orders-lake\n", "      - lake: orders-lake\n      - lake: copy-lake\n")
                .replace("    batching:\n", "    deduplicate: orders-by-id\n    batching:\n");
        assertThat(twoLakes).contains("copy-lake:").contains("- lake: copy-lake");

        assertThatThrownBy(() -> loader.parse("shop.yaml", twoLakes))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("stages.land.sinks: a stage with a deduplicate table writes one lake at most:"
                        + " each event's item names the one lake object it is in, got 2 lakes");
    }

    @Test
    void aggregatingWithParallelBatchesPerShardNeedsTheStreamsPartitionKeyAsAggregateKey() {
        String byCurrency = GOOD.replace("      - lake: orders-lake\n", "")
                .replace(
                        "- validate",
                        "- validate\n      - aggregate: {name: spend, key: payload.currency, window: 1h, table:"
                                + " orders-by-id}")
                .replace("batchSize: 50", "batchSize: 50\n      parallelizationFactor: 2");
        String byPartitionKey = byCurrency.replace("key: payload.currency", "key: key");
        String oneBatchAtATime = byCurrency.replace("parallelizationFactor: 2", "parallelizationFactor: 1");

        assertThatThrownBy(() -> loader.parse("shop.yaml", byCurrency))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:24: stages.land.batching.parallelizationFactor: is 2 but aggregate 'spend'"
                        + " groups by payload.currency while stream 'orders-raw' is partitioned by key: concurrent"
                        + " batches of one shard could update the same aggregate item, and one batch advancing the"
                        + " shard's watermark would make the other's records look already counted; use"
                        + " parallelizationFactor: 1, or aggregate by key");
        assertThat(loader.parse("shop.yaml", byPartitionKey)
                        .stage("land")
                        .batching()
                        .parallelizationFactor())
                .isEqualTo(2);
        assertThat(loader.parse("shop.yaml", oneBatchAtATime).stage("land").steps())
                .extracting(StepDefinition::type)
                .containsExactly(StepType.VALIDATE, StepType.AGGREGATE);
    }

    @Test
    void aggregateScaleKeepsEveryDecimalTheValueFieldsSchemaAllows(@TempDir Path dir) throws IOException {
        String sum = GOOD.replace(
                "- validate",
                "- validate\n      - aggregate: {name: spend, key: key, value: payload.amount, functions: [count, sum],"
                        + " window: 1h, table: orders-by-id}");
        String scale3 = sum.replace("table: orders-by-id}", "table: orders-by-id, scale: 3}");

        // the repository's schema: multipleOf 0.01, two decimals, which the default scale keeps
        assertThat(loader.parse("shop.yaml", sum).stage("land").steps()).hasSize(2);
        // a thousandth: the default scale of 2 would dead-letter valid events, scale 3 keeps them
        DefinitionLoader thousandths = loaderWithAmount(dir.resolve("a"), amount -> amount.put("multipleOf", 0.001));
        assertThatThrownBy(() -> thousandths.parse("shop.yaml", sum))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:19: stages.land.steps[1].aggregate.scale: is 2 but 'payload.amount' of schema"
                        + " payments.transaction.v1 allows 3 decimals (multipleOf 0.001): valid events with more than 2"
                        + " would be dead-lettered; use scale: 3 or more");
        assertThat(thousandths.parse("shop.yaml", scale3).stage("land").steps()).hasSize(2);
        // no bound on the decimals at all
        DefinitionLoader unbounded = loaderWithAmount(dir.resolve("b"), amount -> amount.remove("multipleOf"));
        assertThatThrownBy(() -> unbounded.parse("shop.yaml", scale3))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:19: stages.land.steps[1].aggregate.value: 'payload.amount' of schema"
                        + " payments.transaction.v1 is a number with any number of decimals, but the aggregate keeps 3:"
                        + " valid events with more would be dead-lettered; bound the schema's decimals with multipleOf"
                        + " (e.g. 0.01 for two)");
        // whole numbers fit every scale
        DefinitionLoader integers = loaderWithAmount(dir.resolve("c"), amount -> {
            amount.remove("multipleOf");
            amount.put("type", "integer");
        });
        assertThat(integers.parse("shop.yaml", sum).stage("land").steps()).hasSize(2);
    }

    /** A loader whose payments schema has {@code payload.amount} changed by {@code change}. */
    private static DefinitionLoader loaderWithAmount(Path dir, Consumer<ObjectNode> change) throws IOException {
        Files.createDirectories(dir);
        String name = "payments.transaction.v1.json";
        ObjectNode schema = (ObjectNode) TestFiles.MAPPER.readTree(
                TestFiles.root().resolve("schemas/" + name).toFile());
        change.accept((ObjectNode) schema.at("/properties/payload/properties/amount"));
        TestFiles.MAPPER.writeValue(dir.resolve(name).toFile(), schema);
        return new DefinitionLoader(SchemaCatalog.fromDirectory(dir, TestFiles.MAPPER));
    }

    @Test
    void anEmptyStepOptionIsRefusedWithOneLineNamingIt() throws Exception {
        String payments = java.nio.file.Files.readString(TestFiles.root().resolve("pipelines/payments.yaml"));
        String empty = payments.replace("allowedLateness: 24h", "allowedLateness: ~");

        assertThatThrownBy(() -> loader.parse("payments.yaml", empty))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("a value here is empty (~ or null): give it a value or leave it out")
                .hasMessageNotContaining("\n");
    }

    @Test
    void functionSettingsDefaultToTodaysFunctionAndAreReadWhenGiven() {
        FunctionDefinition defaults =
                loader.parse("shop.yaml", GOOD).stage("land").function();
        assertThat(defaults.memoryMb()).isEqualTo(1024);
        assertThat(defaults.timeoutSeconds()).isEqualTo(60);
        assertThat(defaults.reservedConcurrency()).isNull();
        assertThat(defaults.writers()).isEqualTo(8);

        FunctionDefinition payments = loader.load(TestFiles.root().resolve("pipelines/payments.yaml"))
                .stage("validate")
                .function();
        assertThat(payments).isEqualTo(new FunctionDefinition(2048, 60, 4, 24));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            too little memory     | 'memoryMb: 64'          | shop.yaml:25: stages.land.function.memoryMb: must be between 128 and 10240, got 64
            too much memory       | 'memoryMb: 10241'       | shop.yaml:25: stages.land.function.memoryMb: must be between 128 and 10240, got 10241
            zero timeout          | 'timeoutSeconds: 0'     | shop.yaml:25: stages.land.function.timeoutSeconds: must be between 1 and 900, got 0
            timeout over 15 min   | 'timeoutSeconds: 901'   | shop.yaml:25: stages.land.function.timeoutSeconds: must be between 1 and 900, got 901
            no concurrency        | 'reservedConcurrency: 0' | shop.yaml:25: stages.land.function.reservedConcurrency: must be positive, got 0
            below shards          | 'reservedConcurrency: 1' | shop.yaml:25: stages.land.function.reservedConcurrency: is 1 but stream 'orders-raw' feeds up to 2 concurrent batches (2 shards, parallelizationFactor 1): the event-source mapping would be throttled by the stage's own limit; set at least 2 or leave it out
            no writers            | 'writers: 0'            | shop.yaml:25: stages.land.function.writers: must be between 1 and 24, got 0
            more writers than connections | 'writers: 25'   | shop.yaml:25: stages.land.function.writers: must be between 1 and 24, got 25
            unknown field         | 'memorySize: 512'       | shop.yaml:25: stages.land.function.memorySize: unknown field 'memorySize' (known: memoryMb, reservedConcurrency, timeoutSeconds, writers)
            """)
    void badFunctionSettingFailsWithOneMessage(String problem, String setting, String message) {
        String text = withFunction(GOOD, setting);

        assertThatThrownBy(() -> loader.parse("shop.yaml", text))
                .isInstanceOf(DefinitionException.class)
                .hasMessage(message);
    }

    @Test
    void reservedConcurrencyMustCoverEveryShardTimesTheParallelizationFactor() {
        String parallel = GOOD.replace("      - lake: orders-lake\n", "")
                .replace("batchSize: 50", "batchSize: 50\n      parallelizationFactor: 2");
        String three = withFunction(parallel, "reservedConcurrency: 3");
        String four = withFunction(parallel, "reservedConcurrency: 4");

        assertThatThrownBy(() -> loader.parse("shop.yaml", three))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:25: stages.land.function.reservedConcurrency: is 3 but stream 'orders-raw'"
                        + " feeds up to 4 concurrent batches (2 shards, parallelizationFactor 2): the event-source"
                        + " mapping would be throttled by the stage's own limit; set at least 4 or leave it out");
        assertThat(loader.parse("shop.yaml", four).stage("land").function().reservedConcurrency())
                .isEqualTo(4);
    }

    @Test
    void reservedConcurrencyOfAnOnDemandStreamIsNotComparedWithShards() {
        String onDemand = withFunction(GOOD.replace("shards: 2", "onDemand: true"), "reservedConcurrency: 1");

        assertThat(loader.parse("shop.yaml", onDemand).stage("land").function().reservedConcurrency())
                .isEqualTo(1);
    }

    @Test
    void functionSettingsApplyToLambdaStagesOnly() {
        String kcl = GOOD.replace("input: orders-raw", "input: orders-raw\n    consumer: kcl");
        String kclWithFunction = withFunction(kcl, "memoryMb: 2048");

        assertThat(loader.parse("shop.yaml", kcl).stage("land").consumer()).isEqualTo(ConsumerType.KCL);
        assertThatThrownBy(() -> loader.parse("shop.yaml", kclWithFunction))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:25: stages.land.function: applies to consumer: lambda stages only; this stage"
                        + " is consumer: kcl");
    }

    /** The definition with a {@code function:} block holding this one setting before {@code failure:}. */
    private static String withFunction(String definition, String setting) {
        String text = definition.replace("    failure:\n", "    function:\n      " + setting + "\n    failure:\n");
        assertThat(text).isNotEqualTo(definition);
        return text;
    }

    @Test
    void emptyFileIsReported() {
        assertThatThrownBy(() -> loader.parse("empty.yaml", ""))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("empty.yaml: the file is empty");
    }
}
