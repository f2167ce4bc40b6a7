package dev.sluice.verify.reconcile;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The state-regression checker: fed snapshots of a table taken during a run (not only at the end),
 * it reports every item that was observed at a newer position and later at an older one — an
 * attribute that only moves forward in a correct sink (a state item's {@code position}, an
 * aggregate's {@code version}, {@code count} and per-shard watermarks {@code wm_*}) seen lower than
 * before, or an item seen and later gone. Numbers compare as numbers; strings (fixed-width sequence
 * numbers) as strings.
 */
public final class StateRegressions {

    /** One regression: an item's attribute seen at {@code newer}, later at {@code older}. */
    public record Regression(String table, String key, String attribute, String newer, String older) {
        @Override
        public String toString() {
            return table + " " + key + " " + attribute + ": " + newer + " then " + older;
        }
    }

    private final String keyAttribute;
    private final Set<String> forwardOnly;
    private final String forwardOnlyPrefix;
    private final Map<String, Map<String, AttributeValue>> highest = new HashMap<>();
    private final List<Regression> regressions = new ArrayList<>();
    private long snapshots;

    /**
     * @param keyAttribute the table's partition key attribute
     * @param forwardOnly attributes that never move backwards
     * @param forwardOnlyPrefix further such attributes by name prefix (e.g. {@code wm_}), or null
     */
    public StateRegressions(String keyAttribute, Set<String> forwardOnly, String forwardOnlyPrefix) {
        this.keyAttribute = keyAttribute;
        this.forwardOnly = Set.copyOf(forwardOnly);
        this.forwardOnlyPrefix = forwardOnlyPrefix;
    }

    /** Looks at one snapshot (every item of the table) of {@code table}. */
    public synchronized void observe(String table, List<Map<String, AttributeValue>> items) {
        snapshots++;
        Set<String> seen = new java.util.HashSet<>();
        for (Map<String, AttributeValue> item : items) {
            AttributeValue keyValue = item.get(keyAttribute);
            if (keyValue == null) {
                continue;
            }
            String key = keyValue.s() != null ? keyValue.s() : String.valueOf(keyValue.n());
            seen.add(key);
            Map<String, AttributeValue> before = highest.computeIfAbsent(key, k -> new HashMap<>());
            item.forEach((attribute, value) -> {
                if (!tracked(attribute)) {
                    return;
                }
                AttributeValue previous = before.get(attribute);
                if (previous != null && compare(value, previous) < 0) {
                    regressions.add(new Regression(table, key, attribute, text(previous), text(value)));
                } else {
                    before.put(attribute, value);
                }
            });
        }
        for (String key : highest.keySet()) {
            if (!seen.contains(key)) {
                regressions.add(new Regression(table, key, keyAttribute, "present", "absent"));
            }
        }
        seen.forEach(k -> highest.computeIfAbsent(k, x -> new HashMap<>()));
    }

    private boolean tracked(String attribute) {
        return forwardOnly.contains(attribute)
                || (forwardOnlyPrefix != null && attribute.startsWith(forwardOnlyPrefix));
    }

    private static int compare(AttributeValue a, AttributeValue b) {
        if (a.n() != null && b.n() != null) {
            return new BigDecimal(a.n()).compareTo(new BigDecimal(b.n()));
        }
        return text(a).compareTo(text(b));
    }

    private static String text(AttributeValue v) {
        return v.n() != null ? v.n() : String.valueOf(v.s());
    }

    /** The regressions seen so far. */
    public synchronized List<Regression> regressions() {
        return List.copyOf(regressions);
    }

    /** How many snapshots were looked at. */
    public synchronized long snapshots() {
        return snapshots;
    }
}
