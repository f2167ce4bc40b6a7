package dev.sluice.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reconciles a stage whose only durable targets are a lake and a dead-letter queue (clickstream's
 * first stage: the rest goes on to another stream): every valid event the stage keeps is once in
 * the lake, every invalid one dead lettered with the expected reason, nothing else. Which valid
 * events the stage's {@code filter} drops (clickstream's bots) is found by running the same chain
 * in memory on the ledger's events; those must be in no target.
 */
final class LakeReconciliation {

    private LakeReconciliation() {}

    static Reconciliation reconcile(
            Reconciler reconciler,
            List<LedgerEntry> ledger,
            PipelineDefinition definition,
            String stage,
            SchemaCatalog schemas,
            String bucket,
            String prefix,
            String deadLetterQueueUrl) {
        Set<String> filtered = filtered(ledger, definition, stage, schemas);
        Map<String, Integer> lake = reconciler.lakeEventIds(bucket, prefix);
        Map<String, List<String>> deadLetters = reconciler.deadLetterReasons(deadLetterQueueUrl, new HashMap<>());
        List<String> problems = new ArrayList<>();
        long lost = 0;
        long duplicates = 0;
        long unexpected = 0;
        long kept = 0;
        Set<String> valid = new HashSet<>();
        Set<String> invalidPositions = new HashSet<>();
        for (LedgerEntry entry : ledger) {
            String id = entry.event().eventId();
            if (entry.event().valid()) {
                valid.add(id);
                if (filtered.contains(id)) {
                    if (lake.containsKey(id)) {
                        note(problems, "filtered but in the lake: " + id);
                        unexpected++;
                    }
                    continue;
                }
                kept++;
                if (!lake.containsKey(id)) {
                    note(problems, "lost from the lake: " + id);
                    lost++;
                }
            } else {
                invalidPositions.add(entry.position());
                List<String> reasons = deadLetters.get(entry.position());
                if (reasons == null) {
                    note(problems, "lost, not dead lettered: " + id + " at " + entry.position());
                    lost++;
                } else if (!reasons.get(0).equals(entry.event().expectedReason())) {
                    note(
                            problems,
                            "dead lettered as " + reasons.get(0) + ", expected "
                                    + entry.event().expectedReason() + ": " + id);
                    unexpected++;
                }
            }
        }
        long lines = 0;
        for (var e : lake.entrySet()) {
            lines += e.getValue();
            duplicates += e.getValue() - 1;
            if (e.getValue() > 1) {
                note(problems, "in the lake " + e.getValue() + " times: " + e.getKey());
            }
            if (!valid.contains(e.getKey())) {
                note(problems, "in the lake but never produced as valid: " + e.getKey());
                unexpected++;
            }
        }
        long deadLettered = 0;
        for (String position : deadLetters.keySet()) {
            if (invalidPositions.contains(position)) {
                deadLettered++;
            } else {
                note(problems, "dead lettered but produced as valid: " + position);
                unexpected++;
            }
        }
        // the record's "table" is the lake again: the stage has no table, and Reconciliation's
        // balance (produced = table + dead lettered) then reads kept + dead lettered
        long produced = kept + invalidPositions.size();
        return new Reconciliation(
                produced, lines, lines, 0, deadLettered, 0, lost, duplicates, unexpected, List.copyOf(problems));
    }

    /** eventIds of the valid ledger events the stage's chain filters out. */
    static Set<String> filtered(
            List<LedgerEntry> ledger, PipelineDefinition definition, String stage, SchemaCatalog schemas) {
        StageChain chain = StageChain.compile(
                definition,
                stage,
                new StageServices(
                        schemas,
                        new ObjectMapper(),
                        Clock.systemUTC(),
                        name -> "load-reconciliation-key-32-bytes".getBytes(StandardCharsets.UTF_8),
                        Map.of()));
        Set<String> filtered = new HashSet<>();
        Instant now = Instant.now();
        for (int from = 0; from < ledger.size(); from += 1_000) {
            List<LedgerEntry> chunk = ledger.subList(from, Math.min(ledger.size(), from + 1_000));
            List<InboundRecord> records = new ArrayList<>(chunk.size());
            for (LedgerEntry e : chunk) {
                if (e.event().valid()) {
                    records.add(new InboundRecord(
                            definition.stage(stage).input(),
                            new Position(e.shardId(), e.sequenceNumber(), e.subSequence()),
                            e.event().partitionKey(),
                            e.event().data(),
                            now));
                }
            }
            BatchOutcome outcome = chain.process(records);
            Set<String> accepted = new HashSet<>();
            outcome.accepted().forEach(a -> accepted.add(a.eventId()));
            for (LedgerEntry e : chunk) {
                if (e.event().valid() && !accepted.contains(e.event().eventId())) {
                    filtered.add(e.event().eventId());
                }
            }
        }
        return filtered;
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < 10) {
            problems.add(problem);
        }
    }
}
