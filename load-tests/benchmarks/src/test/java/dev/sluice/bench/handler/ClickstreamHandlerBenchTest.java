package dev.sluice.bench.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.MalformedAggregateException;
import dev.sluice.aws.kpl.ShardMap;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.bench.Workload;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.KplFormat;
import dev.sluice.lambda.KinesisStageHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The handler benchmark on clickstream's {@code mask-and-rekey} (it writes the lake and re-keys into
 * {@code clicks-by-page}, KPL-aggregated): the stub answers the Kinesis client in CBOR, as AWS does,
 * and both handlers put the same views on the shards their page ids hash to — Sluice packed per shard
 * after one {@code ListShards}, the hand-written handler one record per view. No timing asserted.
 */
class ClickstreamHandlerBenchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STAGE = "mask-and-rekey";
    private static final Path PIPELINE = Path.of(
                    System.getProperty("sluice.root", "../.."), "pipelines", "clickstream.yaml")
            .toAbsolutePath();

    private static AwsStub stub;
    private static PipelineDefinition definition;
    private static HandlerWorkload.Batches batches;
    private static Map<String, String> sluiceEnv;
    private static Map<String, String> naiveEnv;
    private static KinesisStageHandler sluice;
    private static HandWrittenHandler naive;

    @BeforeAll
    static void wire() {
        System.setProperty("sluice.root", PIPELINE.getParent().getParent().toString());
        stub = new AwsStub();
        definition = new DefinitionLoader(Workload.schemas(StageRuntime.mapper())).load(PIPELINE);
        batches = HandlerWorkload.events(definition, definition.stage(STAGE), 2);
        sluiceEnv = HandlerWorkload.environment("sluice-", definition, STAGE, PIPELINE, stub.endpoint());
        naiveEnv = HandlerWorkload.environment("handwritten-", definition, STAGE, PIPELINE, stub.endpoint());
        HandlerWorkload.provision(stub, definition, definition.stage(STAGE), List.of(sluiceEnv, naiveEnv));
        sluice = new KinesisStageHandler(StageRuntime.fromEnvironment(sluiceEnv), sluiceEnv);
        naive = new HandWrittenHandler(naiveEnv);
    }

    @AfterAll
    static void stop() {
        stub.close();
    }

    @Test
    void bothHandlersPutTheSameViewsOnTheShardsTheirPagesHashTo() {
        int batch = batches.firstWithInvalid();
        stub.reset(r -> r.contains("sluice-") || r.contains("handwritten-"));
        assertThat(sluice.handleRequest(batches.events().get(batch), null).getBatchItemFailures())
                .isEmpty();
        assertThat(naive.handleRequest(batches.events().get(batch), null).getBatchItemFailures())
                .isEmpty();

        List<AwsStub.StreamRecord> packed = stub.records(sluiceEnv.get(EnvironmentNames.stream("clicks-by-page")));
        List<AwsStub.StreamRecord> single = stub.records(naiveEnv.get(EnvironmentNames.stream("clicks-by-page")));
        // Sluice packs a shard's views into KPL aggregates: far fewer records than views
        assertThat(packed)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(KplFormat.hasMagic(r.data())).isTrue());
        assertThat(packed.size()).isLessThan(single.size() / 10);
        assertThat(single)
                .noneSatisfy(r -> assertThat(KplFormat.hasMagic(r.data())).isTrue());

        Map<String, String> sluiceViews = views(packed);
        Map<String, String> naiveViews = views(single);
        assertThat(sluiceViews).isEqualTo(naiveViews).isNotEmpty();
        // clicks-by-page has 2 shards: both used, sequence numbers increasing within each
        assertThat(sluiceViews.values()).containsOnly("shardId-000000000000", "shardId-000000000001");
        assertThat(naiveViews.values()).contains("shardId-000000000000", "shardId-000000000001");
        for (List<AwsStub.StreamRecord> records : List.of(packed, single)) {
            Map<String, String> last = new TreeMap<>();
            for (AwsStub.StreamRecord r : records) {
                String before = last.put(r.shardId(), r.sequenceNumber());
                assertThat(before == null || before.compareTo(r.sequenceNumber()) < 0)
                        .isTrue();
                assertThat(r.sequenceNumber()).hasSize(56);
            }
        }
        Map<String, Long> requests = stub.requests();
        assertThat(requests).containsKeys("KINESIS PutRecords", "KINESIS ListShards");
    }

    @Test
    void aTinyRunMeasuresTheReKeyingStage() {
        HandlerBench.Settings tiny = new HandlerBench.Settings(PIPELINE, STAGE, true, false, 500, 1, 500);
        HandlerBench.StageResult result = HandlerBench.measure(definition, tiny, STAGE, System.err);

        assertThat(result.sluice().cpuMicrosPerEvent()).isPositive();
        assertThat(result.naive().cpuMicrosPerEvent()).isPositive();
        // one object and one PutRecords (of up to 500) per 500-event batch for the hand-written handler
        assertThat(result.naive().requestsPer1000().get("KINESIS PutRecords")).isEqualTo(2.0);
        assertThat(result.sluice().requestsPer1000()).containsKey("KINESIS PutRecords");
        assertThat(result.sluice().requestsPer1000().get("S3 PutObject")).isEqualTo(2.0);
        assertThat(HandlerBench.resultLine(List.of(result)))
                .startsWith("RESULT cpu_us_per_event=")
                .contains(" requests_per_1000_kinesis_putrecords=", " naive_requests_per_1000_kinesis_putrecords=2.0");
    }

    /**
     * eventId → the shard it landed on, each user record of an aggregate on its aggregate's shard;
     * every one on the shard its partition key (the page id) hashes to.
     */
    private static Map<String, String> views(List<AwsStub.StreamRecord> records) {
        ShardMap twoShards = new ShardMap(List.of(
                new ShardMap.Range(
                        "shardId-000000000000",
                        BigInteger.ZERO,
                        BigInteger.TWO.pow(127).subtract(BigInteger.ONE)),
                new ShardMap.Range("shardId-000000000001", BigInteger.TWO.pow(127), ShardMap.MAX_HASH_KEY)));
        Map<String, String> out = new TreeMap<>();
        for (AwsStub.StreamRecord r : records) {
            List<UserRecord> users = new ArrayList<>();
            if (KplFormat.hasMagic(r.data())) {
                try {
                    users.addAll(KplAggregates.decode(r.data()));
                } catch (MalformedAggregateException e) {
                    throw new AssertionError(e);
                }
            } else {
                users.add(new UserRecord(r.partitionKey(), null, r.data()));
            }
            for (UserRecord user : users) {
                JsonNode event = parse(new String(user.data(), StandardCharsets.UTF_8));
                assertThat(user.partitionKey())
                        .isEqualTo(event.at("/payload/pageId").asText());
                assertThat(twoShards.shardFor(ShardMap.hashKey(user.partitionKey(), null)))
                        .isEqualTo(r.shardId());
                out.put(event.path("eventId").asText(), r.shardId());
            }
        }
        return out;
    }

    private static ObjectNode parse(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
