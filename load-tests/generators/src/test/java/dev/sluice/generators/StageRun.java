package dev.sluice.generators;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Generated events through a repository pipeline's stage chain, as one batch of one shard. */
final class StageRun {

    private StageRun() {}

    /** Record {@code i} of the batch gets sequence number {@code i + 1}. */
    static BatchOutcome process(
            String pipeline, String stage, String stream, List<GeneratedEvent> events, Instant arrivedAt) {
        Path root = Path.of(System.getProperty("sluice.root"));
        ObjectMapper mapper = new ObjectMapper();
        SchemaCatalog schemas = SchemaCatalog.fromDirectory(root.resolve("schemas"), mapper);
        PipelineDefinition definition =
                new DefinitionLoader(schemas).load(root.resolve("pipelines/" + pipeline + ".yaml"));
        StageChain chain = StageChain.compile(
                definition,
                stage,
                new StageServices(
                        schemas,
                        mapper,
                        Clock.systemUTC(),
                        name -> "test-tokenization-key-32-bytes!!".getBytes(StandardCharsets.UTF_8),
                        Map.of()));
        List<InboundRecord> records = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            GeneratedEvent e = events.get(i);
            records.add(new InboundRecord(
                    stream,
                    Position.of("shardId-000000000000", Integer.toString(i + 1)),
                    e.partitionKey(),
                    e.data(),
                    arrivedAt));
        }
        return chain.process(records);
    }

    /** Sequence number → reason code the ledger expects, for the invalid events. */
    static Map<String, String> expectedReasons(List<GeneratedEvent> events) {
        Map<String, String> reasons = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (!events.get(i).valid()) {
                reasons.put(Integer.toString(i + 1), events.get(i).expectedReason());
            }
        }
        return reasons;
    }

    /** Sequence number → reason code the chain gave, for the dead letters. */
    static Map<String, String> actualReasons(BatchOutcome outcome) {
        return outcome.deadLetters().stream()
                .collect(Collectors.toMap(
                        d -> d.source().position().sequenceNumber(),
                        (DeadLetter d) -> d.code().name()));
    }
}
