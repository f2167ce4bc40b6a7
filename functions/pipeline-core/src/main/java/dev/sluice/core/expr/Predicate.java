package dev.sluice.core.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A compiled boolean expression over one event. Thread-safe; evaluation reads only the fields the
 * expression names, straight from the parsed event.
 */
public final class Predicate {

    private final String source;
    private final CelRuntime.Program program;
    private final Map<String, EventExpressions.Variable> variables;
    private final Comparison comparison; // null: CEL decides every event
    private final List<List<String>> reads;

    Predicate(
            String source,
            CelRuntime.Program program,
            Map<String, EventExpressions.Variable> variables,
            Comparison comparison,
            List<List<String>> reads) {
        this.source = source;
        this.program = program;
        this.variables = variables;
        this.comparison = comparison;
        this.reads = List.copyOf(reads);
    }

    /** The same expression with this shortcut ({@code null}: none), for tests. */
    Predicate withComparison(Comparison shortcut) {
        return new Predicate(source, program, variables, shortcut, reads);
    }

    /** The field-against-literal comparison deciding most events without CEL's interpreter, or {@code null}. */
    Comparison shortcut() {
        return comparison;
    }

    /**
     * The event fields the expression may read, as paths of member names from the event's root: one
     * per variable it names ({@code amount} is {@code ["payload", "amount"]}).
     */
    public List<List<String>> reads() {
        return reads;
    }

    /** The expression as written. */
    public String source() {
        return source;
    }

    /**
     * Evaluates the expression on an event.
     *
     * @throws ExpressionException if it cannot be evaluated on this event (a field it needs is
     *     absent, a division by zero...)
     */
    public boolean test(ObjectNode event) {
        if (comparison != null) {
            int decided = comparison.test(event);
            if (decided != Comparison.UNDECIDED) {
                return decided == 1;
            }
        }
        try {
            Object result = program.eval(name -> resolve(event, name));
            return Boolean.TRUE.equals(result);
        } catch (CelEvaluationException e) {
            throw new ExpressionException("'" + source + "': " + e.getMessage(), e);
        }
    }

    private Optional<Object> resolve(ObjectNode event, String name) {
        EventExpressions.Variable variable = variables.get(name);
        if (variable == null) {
            return Optional.empty();
        }
        JsonNode node =
                variable.inPayload() ? event.path("payload").get(variable.field()) : event.get(variable.field());
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        return Optional.of(value(node, variable.type() == SimpleType.DOUBLE));
    }

    private static Object value(JsonNode node, boolean asDouble) {
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        if (node.isNumber()) {
            if (asDouble || !node.isIntegralNumber()) {
                return node.doubleValue();
            }
            return node.longValue();
        }
        if (node.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!field.getValue().isNull()) {
                    map.put(field.getKey(), value(field.getValue(), false));
                }
            }
            return map;
        }
        if (node.isArray()) {
            List<Object> list = new ArrayList<>(node.size());
            node.forEach(element -> list.add(value(element, false)));
            return list;
        }
        return node.toString();
    }
}
