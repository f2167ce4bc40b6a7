package dev.sluice.core.stage;

import static dev.sluice.core.stage.StepsTest.load;
import static dev.sluice.core.stage.StepsTest.pipeline;
import static dev.sluice.core.testing.Events.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.DefinitionException;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Records;
import dev.sluice.core.window.PartialAggregate;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An aggregate step declares the scale of its sum, min and max ({@code scale}, default 2): values are
 * fixed-scale decimals within 38 digits, and an event whose value does not fit is dead-lettered, never
 * rounded into the sum.
 */
class AggregateScaleTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    private static final Instant ARRIVED = Instant.parse("2026-11-30T10:00:30Z");
    private static final String OCCURRED = "2026-11-30T10:00:05Z";

    private static String aggregate(String scale) {
        return "      - aggregate: {name: spend, key: payload.currency, value: payload.amount, window: 1h,"
                + " functions: [count, sum, min, max], " + scale + "table: spend}\n";
    }

    private static final Records RAW = StepsTest.RAW.arrivedAt(ARRIVED);

    @Test
    void withoutAScaleSumsKeepTwoDecimalsAndATinyAmountIsDeadLetteredNotSummed() throws IOException {
        // no validate step: the aggregate's own precision is the last line of defence
        StageChain chain = StageChain.compile(load(pipeline(aggregate(""), "")), "s", TestFiles.services(CLOCK));

        BatchOutcome outcome = chain.process(List.of(
                RAW.at("1", payment().eventId("pay-00000001").amount("10.1").occurredAt(OCCURRED)),
                RAW.at("2", payment().eventId("pay-00000002").amount("1E-31").occurredAt(OCCURRED)),
                RAW.at("3", payment().eventId("pay-00000003").amount("5").occurredAt(OCCURRED))));

        assertThat(outcome.aggregates()).singleElement().satisfies((PartialAggregate p) -> {
            assertThat(p.count()).isEqualTo(2);
            assertThat(p.sum().toPlainString()).isEqualTo("15.10");
            assertThat(p.min().toPlainString()).isEqualTo("5.00");
        });
        assertThat(outcome.deadLetters()).singleElement().satisfies((DeadLetter d) -> {
            assertThat(d.code()).isEqualTo(ReasonCode.SCHEMA_INVALID);
            assertThat(d.source().position().sequenceNumber()).isEqualTo("2");
            assertThat(d.detail()).contains("aggregate 'spend' keeps values with at most 2 decimals");
        });
    }

    @Test
    void aDeclaredScaleOfZeroOverCentsTheSchemaAllowsIsRefusedWhenTheDefinitionLoads() {
        // the events would pass validate and then be dead-lettered by the aggregate: refused up front
        // (a value the schema does not bound, e.g. without validate, is still dead-lettered per event)
        assertThatThrownBy(() -> load(pipeline("      - validate\n" + aggregate("scale: 0, "), "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("aggregate.scale: is 0 but 'payload.amount' of schema payments.transaction.v1"
                        + " allows 2 decimals (multipleOf 0.01)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"scale: 38, ", "scale: -1, ", "scale: two, ", "scale: 1.5, "})
    void aScaleBeyondThePrecisionIsRefusedWhenTheDefinitionLoads(String scale) {
        assertThatThrownBy(() -> load(pipeline("      - validate\n" + aggregate(scale), "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("scale: the decimals kept by sum, min and max: a whole number from 0 to 37");
    }
}
