package dev.sluice.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.local.provision.PipelineResources;
import dev.sluice.verify.reconcile.AggregateCheck;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Reconciler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reconciles the aggregates of the stages behind the produced stream's stage (clickstream's {@code
 * page-counts}, behind the re-key hop): each counts every event the first stage kept (valid, not
 * filtered out, not dead lettered) exactly once, less the events it reported {@code LATE} on the
 * dead-letter queue (found by event id: their positions are the hop's). The lake of the first stage
 * is reconciled by {@link LakeReconciliation}; together they cover the pipeline end to end.
 */
final class DownstreamReconciliation {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private DownstreamReconciliation() {}

    /** Stage name → its aggregate's reconciliation, for every later stage with an aggregate. */
    static Map<String, Reconciler.AggregateReconciliation> reconcile(
            Reconciler reconciler,
            PipelineDefinition definition,
            String first,
            PipelineResources resources,
            List<LedgerEntry> ledger,
            Set<String> filtered,
            List<Reconciler.DeadLetterMessage> letters) {
        Map<String, Reconciler.AggregateReconciliation> results = new LinkedHashMap<>();
        Set<String> deadLetteredFirst = new HashSet<>();
        for (Reconciler.DeadLetterMessage letter : letters) {
            if (letter.stage().equals(first)) {
                deadLetteredFirst.add(letter.position());
            }
        }
        List<LedgerEntry> kept = new ArrayList<>();
        for (LedgerEntry entry : ledger) {
            if (entry.event().valid()
                    && !filtered.contains(entry.event().eventId())
                    && !deadLetteredFirst.contains(entry.position())) {
                kept.add(entry);
            }
        }
        for (var e : definition.stages().entrySet()) {
            StageDefinition stage = e.getValue();
            if (e.getKey().equals(first) || stage.consumer() != ConsumerType.KCL) {
                continue;
            }
            Optional<AggregateCheck> check = AggregateCheck.of(stage, resources.tables());
            if (check.isEmpty()) {
                continue;
            }
            results.put(e.getKey(), reconciler.reconcileAggregate(check.get(), kept, late(letters, e.getKey())));
        }
        return results;
    }

    /** The event ids a stage reported late (a side output on its dead-letter queue, reason {@code LATE}). */
    static Set<String> late(List<Reconciler.DeadLetterMessage> letters, String stage) {
        Set<String> ids = new HashSet<>();
        for (Reconciler.DeadLetterMessage letter : letters) {
            if (letter.stage().equals(stage) && letter.reasonCode().equals("LATE") && letter.payload() != null) {
                try {
                    JsonNode event = MAPPER.readTree(letter.payload());
                    if (event.hasNonNull("eventId")) {
                        ids.add(event.get("eventId").asText());
                    }
                } catch (IOException unreadable) {
                    // a late letter whose payload does not parse names no event: its view shows as lost
                }
            }
        }
        return ids;
    }
}
