package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageChainTest {

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);

    static StageChain paymentsChain() {
        return paymentsChainWith(TestFiles.services(CLOCK));
    }

    static StageChain paymentsChainWith(StageServices services) {
        PipelineDefinition payments = TestFiles.loader().load(TestFiles.root().resolve("pipelines/payments.yaml"));
        return StageChain.compile(payments, "validate", services);
    }

    /** Records of the payments stage's input stream, keyed by the fixture's customer. */
    static final Records RAW =
            Records.on("payments-raw").partitionKey("cust-0042137").arrivedAt(Instant.parse("2026-11-30T19:59:59Z"));

    private final StageChain chain = paymentsChain();

    @Test
    void validPaymentIsAcceptedAndStampedWithIngestionTime() throws IOException {
        BatchOutcome outcome = chain.process(List.of(RAW.at("100", Events.fixture("payment-valid.json"))));

        assertThat(outcome.deadLetters()).isEmpty();
        ProcessedEvent event = outcome.accepted().get(0);
        assertThat(event.eventId()).isEqualTo("pay-7f3c2a9e1b");
        assertThat(event.key()).isEqualTo("cust-0042137");
        assertThat(event.occurredAt()).isEqualTo(Instant.parse("2026-11-30T17:42:07.125Z"));
        assertThat(event.event().get("ingestedAt").asText()).isEqualTo("2026-11-30T20:00Z");
        assertThat(event.event().at("/payload/amount").decimalValue()).isEqualByComparingTo("42.95");
        assertThat(event.event().at("/payload/cardNumber").asText()).isEqualTo("************1111");
        assertThat(event.event().at("/payload/email").asText())
                .startsWith("tok_")
                .doesNotContain("devries");
    }

    @Test
    void aKplAggregateThatReachesTheChainIsAMalformedAggregateNotMalformedJson() throws IOException {
        byte[] protobuf = {0x0a, 0x01, 'k'};
        byte[] aggregate = new byte[4 + protobuf.length + 16];
        System.arraycopy(dev.sluice.core.event.KplFormat.magic(), 0, aggregate, 0, 4);
        System.arraycopy(protobuf, 0, aggregate, 4, protobuf.length);
        // a wrong digest (zeros)
        BatchOutcome outcome = chain.process(List.of(RAW.at("1", aggregate)));

        assertThat(outcome.accepted()).isEmpty();
        assertThat(outcome.deadLetters()).singleElement().satisfies(letter -> {
            assertThat(letter.code()).isEqualTo(ReasonCode.MALFORMED_AGGREGATE);
            assertThat(letter.detail()).contains("MD5 digest does not match");
            assertThat(letter.source().data()).isEqualTo(aggregate);
        });
    }

    @Test
    void eachKindOfBadRecordGetsItsReasonCode() throws IOException {
        BatchOutcome outcome = chain.process(List.of(
                RAW.at("1", Events.fixture("payment-malformed.json")),
                RAW.at("2", Events.fixture("payment-negative-amount.json")),
                RAW.at("3", Events.fixture("payment-missing-timestamp.json")),
                RAW.at("4", "[1,2,3]".getBytes(StandardCharsets.UTF_8)),
                RAW.at("5", Events.payment().type("payments.refund.v1")),
                RAW.at("6", Events.payment().occurredAt("30/11/2026 18:42")),
                RAW.at("7", new byte[StageChain.MAX_RECORD_BYTES + 1])));

        assertThat(outcome.accepted()).isEmpty();
        assertThat(outcome.deadLetters())
                .extracting(DeadLetter::code)
                .containsExactly(
                        ReasonCode.MALFORMED_JSON,
                        ReasonCode.SCHEMA_INVALID,
                        ReasonCode.MISSING_TIMESTAMP,
                        ReasonCode.MALFORMED_JSON,
                        ReasonCode.UNKNOWN_TYPE,
                        ReasonCode.INVALID_TIMESTAMP,
                        ReasonCode.OVERSIZE);
        assertThat(outcome.deadLetters().get(1).reason())
                .isEqualTo("SCHEMA_INVALID: $.payload.amount: must have an exclusive minimum value of 0"
                        + " (exclusiveMinimum)");
        assertThat(outcome.deadLetters().get(0).reason()).startsWith("MALFORMED_JSON: Unexpected end-of-input");
        assertThat(outcome.deadLetters().get(4).reason())
                .isEqualTo("UNKNOWN_TYPE: $.type must be 'payments.transaction.v1', got \"payments.refund.v1\"");
    }

    @Test
    void badRecordDoesNotAffectItsNeighboursAndOrderIsKept() throws IOException {
        byte[] good = Events.fixture("payment-valid.json");
        BatchOutcome outcome = chain.process(List.of(
                RAW.at("10", good),
                RAW.at("11", Events.fixture("payment-malformed.json")),
                RAW.at("12", good),
                RAW.at("13", Events.fixture("payment-negative-amount.json")),
                RAW.at("14", good)));

        assertThat(outcome.accepted())
                .extracting(e -> e.position().sequenceNumber())
                .containsExactly("10", "12", "14");
        assertThat(outcome.deadLetters())
                .extracting(d -> d.source().position().sequenceNumber())
                .containsExactly("11", "13");
        // the dead letter keeps the record's bytes as they arrived
        assertThat(outcome.deadLetters().get(0).source().data()).isEqualTo(Events.fixture("payment-malformed.json"));
    }
}
