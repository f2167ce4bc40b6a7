package dev.sluice.generators;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.testing.Records;
import dev.sluice.core.testing.Stages;
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
        StageChain chain = Stages.compile(pipeline, stage, new ObjectMapper(), Clock.systemUTC());
        Records records = Records.on(stream).arrivedAt(arrivedAt);
        List<InboundRecord> batch = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            GeneratedEvent e = events.get(i);
            batch.add(records.partitionKey(e.partitionKey()).at(i + 1, e.data()));
        }
        return chain.process(batch);
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
