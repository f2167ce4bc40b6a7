package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import java.io.IOException;
import java.io.InputStream;
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

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = StageChainTest.class.getResourceAsStream("/events/" + name)) {
            return in.readAllBytes();
        }
    }

    static InboundRecord record(String sequence, byte[] data) {
        return new InboundRecord(
                "payments-raw",
                Position.of("shardId-000000000000", sequence),
                "cust-0042137",
                data,
                Instant.parse("2026-11-30T19:59:59Z"));
    }

    private final StageChain chain = paymentsChain();

    @Test
    void validPaymentIsAcceptedAndStampedWithIngestionTime() throws IOException {
        BatchOutcome outcome = chain.process(List.of(record("100", fixture("payment-valid.json"))));

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
    void eachKindOfBadRecordGetsItsReasonCode() throws IOException {
        BatchOutcome outcome = chain.process(List.of(
                record("1", fixture("payment-malformed.json")),
                record("2", fixture("payment-negative-amount.json")),
                record("3", fixture("payment-missing-timestamp.json")),
                record("4", "[1,2,3]".getBytes(StandardCharsets.UTF_8)),
                record(
                        "5",
                        new String(fixture("payment-valid.json"), StandardCharsets.UTF_8)
                                .replace("payments.transaction.v1", "payments.refund.v1")
                                .getBytes(StandardCharsets.UTF_8)),
                record(
                        "6",
                        new String(fixture("payment-valid.json"), StandardCharsets.UTF_8)
                                .replace("2026-11-30T18:42:07.125+01:00", "30/11/2026 18:42")
                                .getBytes(StandardCharsets.UTF_8)),
                record("7", new byte[StageChain.MAX_RECORD_BYTES + 1])));

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
        byte[] good = fixture("payment-valid.json");
        BatchOutcome outcome = chain.process(List.of(
                record("10", good),
                record("11", fixture("payment-malformed.json")),
                record("12", good),
                record("13", fixture("payment-negative-amount.json")),
                record("14", good)));

        assertThat(outcome.accepted())
                .extracting(e -> e.position().sequenceNumber())
                .containsExactly("10", "12", "14");
        assertThat(outcome.deadLetters())
                .extracting(d -> d.source().position().sequenceNumber())
                .containsExactly("11", "13");
        // the dead letter keeps the record's bytes as they arrived
        assertThat(outcome.deadLetters().get(0).source().data()).isEqualTo(fixture("payment-malformed.json"));
    }
}
