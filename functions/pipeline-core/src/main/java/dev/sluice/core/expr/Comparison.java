package dev.sluice.core.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.SimpleType;
import java.util.List;
import java.util.Map;

/**
 * The commonest filter, one number field against a number literal ({@code amount > 1.0}, {@code
 * 100 <= amount}), decided without CEL's interpreter when the field holds a number. Everything
 * else — a missing, {@code null} or non-number field, a zero (CEL's sign of zero is its own
 * business), any other expression — is left to CEL, so the verdict and every error stay CEL's.
 */
class Comparison {

    /** {@link #test}: the comparison cannot decide; ask CEL. */
    static final int UNDECIDED = -1;

    /** The largest magnitude up to which every {@code long} is exactly a {@code double}. */
    private static final long EXACT_LONG = 1L << 53;

    enum Operator {
        LESS,
        LESS_OR_EQUAL,
        GREATER,
        GREATER_OR_EQUAL;

        boolean holds(double left, double right) {
            return switch (this) {
                case LESS -> left < right;
                case LESS_OR_EQUAL -> left <= right;
                case GREATER -> left > right;
                case GREATER_OR_EQUAL -> left >= right;
            };
        }

        /** The operator with its operands swapped: {@code 1 < x} is {@code x > 1}. */
        Operator swapped() {
            return switch (this) {
                case LESS -> GREATER;
                case LESS_OR_EQUAL -> GREATER_OR_EQUAL;
                case GREATER -> LESS;
                case GREATER_OR_EQUAL -> LESS_OR_EQUAL;
            };
        }

        static Operator of(String celFunction) {
            return switch (celFunction) {
                case "_<_" -> LESS;
                case "_<=_" -> LESS_OR_EQUAL;
                case "_>_" -> GREATER;
                case "_>=_" -> GREATER_OR_EQUAL;
                default -> null;
            };
        }
    }

    private final EventExpressions.Variable variable;
    private final Operator operator;
    private final double literal;

    private Comparison(EventExpressions.Variable variable, Operator operator, double literal) {
        this.variable = variable;
        this.operator = operator;
        this.literal = literal;
    }

    /** The same comparison (tests subclass it to break it on purpose). */
    Comparison(Comparison same) {
        this(same.variable, same.operator, same.literal);
    }

    /** Whether {@code value OP literal} holds. */
    boolean holds(double value, double literal) {
        return operator.holds(value, literal);
    }

    /**
     * The comparison a checked expression is, or {@code null} when it is anything else: the root
     * must be one of CEL's {@code < <= > >=} between a {@code double} variable and a number literal
     * (a {@code double}, or an {@code int} that a {@code double} holds exactly).
     */
    static Comparison of(CelExpr root, Map<String, EventExpressions.Variable> variables) {
        if (root.getKind() != CelExpr.ExprKind.Kind.CALL) {
            return null;
        }
        CelExpr.CelCall call = root.call();
        Operator operator = Operator.of(call.function());
        List<CelExpr> args = call.args();
        if (operator == null || call.target().isPresent() || args.size() != 2) {
            return null;
        }
        CelExpr left = args.get(0);
        CelExpr right = args.get(1);
        if (left.getKind() == CelExpr.ExprKind.Kind.CONSTANT && right.getKind() == CelExpr.ExprKind.Kind.IDENT) {
            return of(right, operator.swapped(), left, variables);
        }
        return of(left, operator, right, variables);
    }

    private static Comparison of(
            CelExpr ident, Operator operator, CelExpr constant, Map<String, EventExpressions.Variable> variables) {
        if (ident.getKind() != CelExpr.ExprKind.Kind.IDENT || constant.getKind() != CelExpr.ExprKind.Kind.CONSTANT) {
            return null;
        }
        EventExpressions.Variable variable = variables.get(ident.ident().name());
        if (variable == null || variable.type() != SimpleType.DOUBLE) {
            return null;
        }
        CelConstant value = constant.constant();
        double literal;
        if (value.getKind() == CelConstant.Kind.DOUBLE_VALUE) {
            literal = value.doubleValue();
        } else if (value.getKind() == CelConstant.Kind.INT64_VALUE && Math.abs(value.int64Value()) <= EXACT_LONG) {
            literal = value.int64Value();
        } else {
            return null;
        }
        if (Double.isNaN(literal) || literal == 0.0) {
            return null;
        }
        return new Comparison(variable, operator, literal);
    }

    /** 1 if the comparison holds on this event, 0 if not, {@link #UNDECIDED} if CEL must say. */
    int test(ObjectNode event) {
        JsonNode node =
                variable.inPayload() ? event.path("payload").get(variable.field()) : event.get(variable.field());
        if (node == null || !node.isNumber()) {
            return UNDECIDED;
        }
        double value = node.doubleValue();
        if (Double.isNaN(value) || value == 0.0) {
            return UNDECIDED;
        }
        return holds(value, literal) ? 1 : 0;
    }
}
