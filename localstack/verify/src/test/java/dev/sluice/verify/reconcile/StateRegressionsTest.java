package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The state-regression checker against two in-memory state sinks fed the same deliveries — a zombie's
 * late replay of an older batch after the new owner applied a newer one: the guarded sink (applies a
 * record only at a newer position, as {@code DynamoDbStateSink}) shows no regression, the broken one
 * (writes unconditionally) is caught.
 */
class StateRegressionsTest {

    /** A state sink keeping the latest record per key in memory. */
    private static final class Sink {
        private final boolean guarded;
        private final Map<String, Map<String, AttributeValue>> items = new TreeMap<>();

        Sink(boolean guarded) {
            this.guarded = guarded;
        }

        void apply(String key, String position, String value) {
            Map<String, AttributeValue> current = items.get(key);
            if (guarded && current != null && current.get("position").s().compareTo(position) >= 0) {
                return; // absorbed: not newer than what is stored
            }
            items.put(
                    key,
                    Map.of(
                            "pk", AttributeValue.fromS(key),
                            "position", AttributeValue.fromS(position),
                            "value", AttributeValue.fromS(value)));
        }

        List<Map<String, AttributeValue>> scan() {
            return new ArrayList<>(items.values());
        }
    }

    private static List<StateRegressions.Regression> replayAfterTakeover(Sink sink) {
        StateRegressions checker = new StateRegressions("pk", Set.of("position"), null);
        String[] batch1 = {"p-1", "0001", "p-2", "0002"};
        String[] batch2 = {"p-1", "0003", "p-2", "0004"};
        apply(sink, batch1);
        checker.observe("t", sink.scan());
        apply(sink, batch2); // the new owner's newer batch
        checker.observe("t", sink.scan());
        apply(sink, batch1); // the zombie's late write of the older batch
        checker.observe("t", sink.scan());
        return checker.regressions();
    }

    private static void apply(Sink sink, String[] batch) {
        for (int i = 0; i < batch.length; i += 2) {
            sink.apply(batch[i], String.format("%030d", Long.parseLong(batch[i + 1])), "v" + batch[i + 1]);
        }
    }

    @Test
    void aSinkThatOverwritesWithAnOlderPositionIsCaught() {
        List<StateRegressions.Regression> regressions = replayAfterTakeover(new Sink(false));

        assertThat(regressions).hasSize(2);
        assertThat(regressions.get(0).key()).isEqualTo("p-1");
        assertThat(regressions.get(0).newer()).endsWith("3");
        assertThat(regressions.get(0).older()).endsWith("1");
    }

    @Test
    void aSinkGuardedByPositionShowsNoRegression() {
        assertThat(replayAfterTakeover(new Sink(true))).isEmpty();
    }

    @Test
    void aCountSeenLowerOrAnItemGoneIsARegression() {
        StateRegressions checker = new StateRegressions("pk", Set.of("count"), "wm_");
        checker.observe(
                "agg",
                List.of(Map.of(
                        "pk", AttributeValue.fromS("a"),
                        "count", AttributeValue.fromN("10"),
                        "wm_shard-1", AttributeValue.fromS("0009"))));
        checker.observe(
                "agg",
                List.of(Map.of(
                        "pk", AttributeValue.fromS("a"),
                        "count", AttributeValue.fromN("9"),
                        "wm_shard-1", AttributeValue.fromS("0010"))));
        checker.observe("agg", List.of());

        assertThat(checker.regressions())
                .extracting(StateRegressions.Regression::attribute)
                .containsExactly("count", "pk");
    }
}
