package dev.sluice.core.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.testing.Events;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A payment's amount has at most two decimals ({@code multipleOf: 0.01}): an amount DynamoDB could not
 * add up (more than 38 significant digits, or tiny like {@code 1E-40}) is {@code SCHEMA_INVALID} at the
 * door, and the fast validator and networknt say so alike, whether the event is read with doubles or
 * with exact decimals (as the stage runtime reads it).
 */
class AmountScaleTest {

    private static final EventSchema PAYMENTS = TestFiles.schemas().schema("payments.transaction.v1");

    /** The payment with {@code amount} as its number text, read with exact decimals or with doubles. */
    private static JsonNode read(Events.Payment payment, boolean decimals) throws IOException {
        return (decimals ? FastValidatorConformanceTest.DECIMALS : FastValidatorConformanceTest.DOUBLES)
                .readTree(payment.json());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1E-40",
                "1E-31",
                "0.001",
                "12.345",
                "0.000000001",
                "999999.999",
                "12.340000000000000000000000000000000000001",
                "1.00000000000000000000000000000000000000001"
            })
    void anAmountWithMoreThanTwoDecimalsIsSchemaInvalid(String amount) throws IOException {
        JsonNode event = read(Events.payment().amount(amount), true);

        assertThat(PAYMENTS.referenceViolations(event))
                .singleElement()
                .satisfies(v -> assertThat(v).startsWith("$.payload.amount").endsWith("(multipleOf)"));
        assertThat(PAYMENTS.violations(event)).isEqualTo(PAYMENTS.referenceViolations(event));
        assertThat(PAYMENTS.fastValidator().orElseThrow().isValid(event)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1E-40", "0.001", "12.345", "999999.999"})
    void readAsDoublesTheSameAmountsAreInvalidToo(String amount) throws IOException {
        JsonNode event = read(Events.payment().amount(amount), false);

        assertThat(PAYMENTS.referenceViolations(event)).isNotEmpty();
        assertThat(PAYMENTS.fastValidator().orElseThrow().isValid(event)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"42.95", "0.01", "1", "7.5", "1E+2", "4.295E1", "1000000", "999999.99", "12.3400000"})
    void anAmountWithAtMostTwoDecimalsStaysValid(String amount) throws IOException {
        for (boolean decimals : new boolean[] {true, false}) {
            JsonNode event = read(Events.payment().amount(amount), decimals);

            assertThat(PAYMENTS.referenceViolations(event)).as(amount).isEmpty();
            assertThat(PAYMENTS.fastValidator().orElseThrow().isValid(event))
                    .as(amount)
                    .isTrue();
        }
    }
}
