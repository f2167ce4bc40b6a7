package dev.sluice.core.expr;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * A filter of one number field against a number literal is decided without CEL's interpreter
 * ({@link Comparison}); for generated expressions and events its verdict — or its error — is CEL's
 * own. {@link #aBrokenShortcutIsCaught} runs the property with a comparison that counts equality
 * as true for the strict operators.
 */
class ComparisonPropertyTest {

    private static final ObjectMapper PLAIN = new ObjectMapper();
    private static final ObjectMapper DECIMALS =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final String SCHEMA = """
            {"properties": {
              "amount": {"type": "number"},
              "count": {"type": "integer"},
              "payload": {"type": "object", "properties": {
                "price": {"type": "number"},
                "amount": {"type": "string"}}}}}""";

    private static final String[] FIELDS = {"amount", "price", "count"};
    private static final String[] OPERATORS = {"<", "<=", ">", ">="};
    private static final String[] LITERALS = {
        "1.0", "1", "-3.5", "2e3", "0.0", "0", "12.3", "9007199254740993", "9007199254740992", "-7"
    };
    private static final String[] VALUES = {
        "1",
        "1.0",
        "1.00",
        "0",
        "-0",
        "0.0",
        "-0.0",
        "-3.5",
        "-3.50",
        "2000",
        "2e3",
        "2000.0001",
        "12.3",
        "12.29999999999999999",
        "9007199254740993",
        "9007199254740992",
        "1e400",
        "-1e400",
        "-7",
        "-8",
        "\"1\"",
        "null",
        "true",
        "{}",
        "[1]"
    };

    record Case(String expression, String json, boolean decimals) {}

    static Gen<Case> cases() {
        return fromRandom(random -> {
            String field = pick(random, FIELDS);
            String operator = pick(random, OPERATORS);
            String literal = pick(random, LITERALS);
            String expression = random.nextBoolean()
                    ? field + " " + operator + " " + literal
                    : literal + " " + operator + " " + field;
            return new Case(expression, event(random), random.nextBoolean());
        });
    }

    private static String event(Random random) {
        StringBuilder json = new StringBuilder("{\"eventId\": \"e\"");
        if (random.nextInt(5) > 0) {
            json.append(", \"amount\": ").append(pick(random, VALUES));
        }
        if (random.nextInt(5) > 0) {
            json.append(", \"count\": ").append(pick(random, VALUES));
        }
        if (random.nextInt(5) > 0) {
            json.append(", \"payload\": {\"price\": ")
                    .append(pick(random, VALUES))
                    .append(", \"amount\": \"x\"}");
        }
        return json.append('}').toString();
    }

    private static String pick(Random random, String[] options) {
        return options[random.nextInt(options.length)];
    }

    /** What CEL alone says, or its error: the reference. */
    private static String verdict(Predicate predicate, ObjectNode event) {
        try {
            return String.valueOf(predicate.test(event));
        } catch (ExpressionException e) {
            return "error: " + e.getMessage();
        }
    }

    private static void shortcutAgreesWithCel(UnaryOperator<Comparison> shortcut) {
        EventExpressions expressions;
        try {
            expressions = new EventExpressions(PLAIN.readTree(SCHEMA));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        qt(400).forAll(cases()).checkAssert(c -> {
            Predicate compiled = expressions.compile(c.expression());
            Predicate cel = compiled.withComparison(null);
            Predicate fast = compiled.shortcut() == null
                    ? compiled
                    : compiled.withComparison(shortcut.apply(compiled.shortcut()));
            ObjectNode event;
            try {
                event = (ObjectNode) (c.decimals() ? DECIMALS : PLAIN).readTree(c.json());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            assertThat(verdict(fast, event)).as(c.toString()).isEqualTo(verdict(cel, event));
        });
    }

    @Test
    void theShortcutDecidesAsCelDoes() {
        shortcutAgreesWithCel(UnaryOperator.identity());
    }

    @Test
    void aBrokenShortcutIsCaught() {
        assertFalsified(() -> shortcutAgreesWithCel(real -> new Comparison(real) {
            @Override
            boolean holds(double value, double literal) {
                return super.holds(value, literal) || value == literal;
            }
        }));
    }

    @Test
    void onlyANumberFieldAgainstANumberLiteralIsShortcut() throws Exception {
        EventExpressions expressions = new EventExpressions(PLAIN.readTree(SCHEMA));

        assertThat(expressions.compile("amount > 1.0").shortcut()).isNotNull();
        assertThat(expressions.compile("100 <= price").shortcut()).isNotNull();
        assertThat(expressions.compile("count > 1").shortcut())
                .as("an int field")
                .isNull();
        assertThat(expressions.compile("amount > 0.0").shortcut()).as("zero").isNull();
        assertThat(expressions.compile("amount > 1.0 && price < 3.0").shortcut())
                .isNull();
        assertThat(expressions.compile("amount == 1.0").shortcut()).isNull();
    }
}
