package dev.sluice.bench.handler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.aws.StageRuntime;
import dev.sluice.bench.Workload;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.PipelineDefinition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The handler benchmark on clickstream's {@code page-counts}, a {@code consumer: kcl} stage: KCL's
 * record processor, wired as the worker wires it, processes a {@code ProcessRecordsInput} against the
 * stub — items written, views dead-lettered, the checkpoint at the batch's last record — and the
 * same batch delivered again to the next owner of the lease adds nothing. No timing asserted.
 */
class KclHandlerBenchTest {

    private static final String STAGE = "page-counts";
    private static final Path PIPELINE = Path.of(
                    System.getProperty("sluice.root", "../.."), "pipelines", "clickstream.yaml")
            .toAbsolutePath();

    private static AwsStub stub;
    private static PipelineDefinition definition;
    private static HandlerWorkload.Batches batches;
    private static Map<String, String> sluiceEnv;
    private static Map<String, String> naiveEnv;
    private static KclStageTarget kcl;
    private static HandWrittenHandler naive;

    @BeforeAll
    static void wire() {
        System.setProperty("sluice.root", PIPELINE.getParent().getParent().toString());
        stub = new AwsStub();
        definition = new DefinitionLoader(Workload.schemas(StageRuntime.mapper())).load(PIPELINE);
        batches = HandlerWorkload.events(definition, definition.stage(STAGE), 3);
        sluiceEnv = HandlerWorkload.environment("sluice-", definition, STAGE, PIPELINE, stub.endpoint());
        naiveEnv = HandlerWorkload.environment("handwritten-", definition, STAGE, PIPELINE, stub.endpoint());
        HandlerWorkload.provision(stub, definition, definition.stage(STAGE), List.of(sluiceEnv, naiveEnv));
        kcl = new KclStageTarget(sluiceEnv, "clicks-by-page", batches.events());
        naive = new HandWrittenHandler(naiveEnv);
    }

    @AfterAll
    static void stop() {
        stub.close();
    }

    @Test
    void theRecordProcessorWritesTheBatchAndCheckpointsAtItsLastRecord() {
        int batch = batches.firstWithInvalid();
        assertThat(batches.invalid()[batch]).isPositive();
        stub.reset(r -> r.contains("sluice-") || r.contains("handwritten-"));
        kcl.lease();
        long before = kcl.checkpointWrites();

        kcl.process(batch);
        assertThat(naive.handleRequest(batches.events().get(batch), null).getBatchItemFailures())
                .isEmpty();

        var records = batches.events().get(batch).getRecords();
        String last = records.get(records.size() - 1).getKinesis().getSequenceNumber();
        assertThat(kcl.lastCheckpoint().sequenceNumber()).isEqualTo(last);
        assertThat(kcl.checkpointWrites() - before).isEqualTo(1);
        assertThat(kcl.registry().snapshot()).containsKey(KclStageTarget.SHARD);

        // both wrote the same views into clicks-by-id and the same (page, minute) windows
        Map<String, ?> sluiceViews = stub.items(table(sluiceEnv, "clicks-by-id"));
        Map<String, ?> naiveViews = stub.items(table(naiveEnv, "clicks-by-id"));
        // page-counts does not validate: only what cannot be parsed is dead-lettered; every other view is written
        var sluiceDead = stub.messages(sluiceEnv.get(EnvironmentNames.queueUrl("clicks-dlq")));
        assertThat(sluiceViews).hasSize(records.size() - sluiceDead.size());
        assertThat(sluiceViews.keySet()).isEqualTo(naiveViews.keySet());
        Map<String, ?> sluiceWindows = stub.items(table(sluiceEnv, "page-views-per-minute"));
        assertThat(sluiceWindows).isNotEmpty();
        assertThat(sluiceWindows.keySet())
                .isEqualTo(stub.items(table(naiveEnv, "page-views-per-minute")).keySet());
        assertThat(sluiceDead).hasSameSizeAs(stub.messages(naiveEnv.get(EnvironmentNames.queueUrl("clicks-dlq"))));
    }

    @Test
    void theSameBatchDeliveredToTheNextOwnerAddsNothing() {
        stub.reset(r -> r.contains("sluice-"));
        kcl.lease();
        kcl.process(1);
        Map<String, String> views = snapshot(table(sluiceEnv, "clicks-by-id"));
        Map<String, String> windows = snapshot(table(sluiceEnv, "page-views-per-minute"));

        kcl.lease(); // the lease changes hands before the checkpoint reached the lease table
        kcl.process(1);

        assertThat(snapshot(table(sluiceEnv, "clicks-by-id"))).isEqualTo(views);
        assertThat(snapshot(table(sluiceEnv, "page-views-per-minute"))).isEqualTo(windows);
    }

    @Test
    void aTinyRunMeasuresTheKclStageAndModelsItsCeiling() {
        HandlerBench.Settings tiny = new HandlerBench.Settings(PIPELINE, STAGE, true, false, 1000, 1, 1000);
        HandlerBench.StageResult result = HandlerBench.measure(definition, tiny, STAGE, System.err);

        assertThat(result.consumer()).isEqualTo(ConsumerType.KCL);
        assertThat(result.batchSize()).isEqualTo(1000);
        assertThat(result.sluice().cpuMicrosPerEvent()).isPositive();
        assertThat(result.naive().cpuMicrosPerEvent()).isPositive();
        assertThat(result.sluice().lostThreads()).isZero();
        // one checkpoint a batch of 1,000
        assertThat(result.checkpointsPer1000()).isEqualTo(1.0);
        assertThat(result.sluiceGraph().records()).isEqualTo(1000);
        assertThat(result.sluiceGraph().calls()).isNotEmpty();
        // one GetRecords of up to 1,000 records a second (idle time between reads 1 s)
        assertThat(result.model().ceiling().byGetRecords()).isEqualTo(1000.0);
        assertThat(result.model().vcpu()).isEqualTo(1.0);
        assertThat(HandlerBench.resultLine(List.of(result)))
                .startsWith("RESULT cpu_us_per_event=")
                .contains(
                        " page_counts_aws_batch_ms_p50=",
                        " page_counts_aws_batch_ms_p99=",
                        " page_counts_aws_ceiling_per_shard=",
                        " page_counts_naive_aws_ceiling_per_shard=",
                        " checkpoints_per_1000=1.0");
    }

    private static String table(Map<String, String> env, String logical) {
        return env.get(EnvironmentNames.table(logical));
    }

    private static Map<String, String> snapshot(String table) {
        Map<String, String> out = new TreeMap<>();
        stub.items(table).forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }
}
