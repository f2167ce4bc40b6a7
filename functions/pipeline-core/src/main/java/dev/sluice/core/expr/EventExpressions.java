package dev.sluice.core.expr;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerBuilder;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compiles CEL expressions ({@code amount > 1000 && country != 'NL'}) over the events of one
 * schema. The variables are the event's top-level fields and, for brevity, the fields of its
 * {@code payload} (an envelope field wins a name clash; the payload's stays reachable as
 * {@code payload.name}). Types come from the schema, so a misspelt field or a type error fails
 * when the definition loads, not on a record.
 */
public final class EventExpressions {

    private static final CelOptions OPTIONS =
            CelOptions.current().enableHeterogeneousNumericComparisons(true).build();

    private final Map<String, Variable> variables;
    private final CelCompiler compiler;
    private final CelRuntime runtime;

    /** Where a variable's value lives in the event, and its CEL type. */
    record Variable(String field, boolean inPayload, CelType type) {}

    /** Expressions over the events of a schema. */
    public EventExpressions(JsonNode schemaDocument) {
        this(schemaDocument, java.util.Set.of());
    }

    /**
     * Expressions over the events of a schema, after enrich steps added these top-level object
     * fields.
     */
    public EventExpressions(JsonNode schemaDocument, java.util.Set<String> enrichedFields) {
        Map<String, Variable> vars = new LinkedHashMap<>();
        JsonNode payload = schemaDocument.path("properties").path("payload").path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = payload.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            vars.put(field.getKey(), new Variable(field.getKey(), true, type(field.getValue())));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it =
                        schemaDocument.path("properties").fields();
                it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            vars.put(field.getKey(), new Variable(field.getKey(), false, type(field.getValue())));
        }
        for (String field : enrichedFields) {
            vars.put(field, new Variable(field, false, MapType.create(SimpleType.STRING, SimpleType.DYN)));
        }
        this.variables = Map.copyOf(vars);
        CelCompilerBuilder builder = CelCompilerFactory.standardCelCompilerBuilder()
                .setOptions(OPTIONS)
                .setResultType(SimpleType.BOOL);
        vars.forEach((name, variable) -> builder.addVar(name, variable.type()));
        this.compiler = builder.build();
        this.runtime = CelRuntimeFactory.standardCelRuntimeBuilder()
                .setOptions(OPTIONS)
                .build();
    }

    /**
     * Compiles a boolean expression.
     *
     * @throws ExpressionException naming the problem and its position, e.g. {@code undeclared
     *     reference to 'amout' (in container '') at 1:1}
     */
    public Predicate compile(String source) {
        try {
            CelAbstractSyntaxTree ast = compiler.compile(source).getAst();
            return new Predicate(
                    source, runtime.createProgram(ast), variables, Comparison.of(ast.getExpr(), variables), reads(ast));
        } catch (CelValidationException e) {
            throw new ExpressionException(describe(e), e);
        } catch (CelEvaluationException e) {
            throw new ExpressionException(e.getMessage(), e);
        }
    }

    /**
     * The event fields an expression reads: the paths of the variables its identifiers name (a name
     * bound inside the expression, such as a comprehension's, is no variable and reads nothing).
     */
    private List<List<String>> reads(CelAbstractSyntaxTree ast) {
        Set<List<String>> reads = new LinkedHashSet<>();
        CelNavigableAst.fromAst(ast)
                .getRoot()
                .allNodes()
                .filter(node -> node.getKind() == CelExpr.ExprKind.Kind.IDENT)
                .map(node -> variables.get(node.expr().ident().name()))
                .filter(Objects::nonNull)
                .forEach(v -> reads.add(v.inPayload() ? List.of("payload", v.field()) : List.of(v.field())));
        return List.copyOf(reads);
    }

    /** The variables an expression may use, with their CEL types (for documentation and errors). */
    public Map<String, String> variableTypes() {
        Map<String, String> types = new LinkedHashMap<>();
        variables.forEach((name, v) -> types.put(name, v.type().name()));
        return types;
    }

    private static String describe(CelValidationException e) {
        // CEL's message is "ERROR: <input>:1:1: undeclared reference to 'amout' ...\n | amout > 1\n | ^"
        String first = e.getMessage().lines().findFirst().orElse(e.getMessage());
        return first.replaceFirst("^ERROR: <input>:", "at ");
    }

    private static CelType type(JsonNode schema) {
        if (schema.has("const")) {
            return fromValue(schema.get("const"));
        }
        if (schema.has("enum") && schema.get("enum").size() > 0 && !schema.has("type")) {
            return fromValue(schema.get("enum").get(0));
        }
        return switch (schema.path("type").asText("")) {
            case "string" -> SimpleType.STRING;
            case "number" -> SimpleType.DOUBLE;
            case "integer" -> SimpleType.INT;
            case "boolean" -> SimpleType.BOOL;
            case "object" -> MapType.create(SimpleType.STRING, SimpleType.DYN);
            case "array" -> ListType.create(SimpleType.DYN);
            default -> SimpleType.DYN;
        };
    }

    private static CelType fromValue(JsonNode value) {
        if (value.isTextual()) {
            return SimpleType.STRING;
        }
        if (value.isIntegralNumber()) {
            return SimpleType.INT;
        }
        if (value.isNumber()) {
            return SimpleType.DOUBLE;
        }
        if (value.isBoolean()) {
            return SimpleType.BOOL;
        }
        return SimpleType.DYN;
    }
}
