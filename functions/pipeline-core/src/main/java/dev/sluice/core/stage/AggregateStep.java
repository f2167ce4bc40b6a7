package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.definition.FieldPaths;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.json.NodePath;
import dev.sluice.core.window.TumblingWindows;
import dev.sluice.core.window.Verdict;
import java.math.BigDecimal;
import java.util.List;

/**
 * Event-time tumbling windows per key. Each batch gets its own accumulator; at the end of the batch
 * it adds one partial aggregate per (key, window) to the outcome, for a sink to apply with one
 * write each. A late event is left out of the aggregate and reported on the side output with reason
 * {@code LATE}; it still goes on to the stage's other sinks.
 */
final class AggregateStep implements Step {

    private final TumblingWindows windows;
    private final NodePath key;
    private final NodePath value;
    private final TumblingWindows.Batch batch;

    AggregateStep(TumblingWindows windows, String keyPath, String valuePath) {
        this(windows, pointer(keyPath), valuePath == null ? null : pointer(valuePath), null);
    }

    private AggregateStep(TumblingWindows windows, NodePath key, NodePath value, TumblingWindows.Batch batch) {
        this.windows = windows;
        this.key = key;
        this.value = value;
        this.batch = batch;
    }

    @Override
    public Step forBatch() {
        return new AggregateStep(windows, key, value, windows.startBatch());
    }

    @Override
    public boolean keepsBytes() {
        return true; // reads the event only
    }

    @Override
    public List<List<String>> reads() {
        return value == null ? List.of(key.names()) : List.of(key.names(), value.names());
    }

    @Override
    public DeadLetter apply(EventContext context) {
        if (batch == null) {
            throw new IllegalStateException("aggregate step used outside a batch");
        }
        InboundRecord record = context.record();
        JsonNode keyNode = key.at(context.event());
        if (!keyNode.isValueNode()) {
            return new DeadLetter(
                    record,
                    ReasonCode.SCHEMA_INVALID,
                    "aggregate '" + windows.name() + "' needs " + key + " as its key");
        }
        BigDecimal amount = null;
        if (value != null) {
            JsonNode valueNode = value.at(context.event());
            if (valueNode.isNumber()) {
                amount = valueNode.decimalValue();
            }
        }
        Verdict verdict = batch.add(
                keyNode.asText(),
                context.occurredAt(),
                amount,
                record.arrivedAt(),
                record.position().shardId(),
                record.position().sequence());
        return switch (verdict.kind()) {
            case ACCEPTED -> null;
            case LATE -> {
                context.sideOutput(new DeadLetter(record, ReasonCode.LATE, verdict.detail()));
                yield null;
            }
            case INVALID -> new DeadLetter(record, ReasonCode.SCHEMA_INVALID, verdict.detail());
        };
    }

    @Override
    public void finish(BatchOutcome.Builder outcome) {
        if (batch != null) {
            outcome.aggregates(batch.finish());
        }
    }

    private static NodePath pointer(String path) {
        return NodePath.of(FieldPaths.pointer(path));
    }
}
