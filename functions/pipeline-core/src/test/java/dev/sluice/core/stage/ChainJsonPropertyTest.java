package dev.sluice.core.stage;

import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.TestFiles;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.testing.Events;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The payments stage's chain (validate → mask) hands its sinks the record's own bytes with the
 * masked values and the {@code ingestedAt} stamp spliced in: for generated payments, those bytes
 * are one line, read as the same JSON as the event tree, and hold no card number or e-mail address.
 * (A broken splice is caught by {@code JsonEditsPropertyTest}; a chain without its mask step by
 * {@link ChainPiiLeakPropertyTest}.)
 */
class ChainJsonPropertyTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    private static final ObjectMapper MAPPER = TestFiles.services(CLOCK).mapper();

    @Test
    void theSplicedBytesAreTheMaskedEvent() {
        StageChain chain = StageChainTest.paymentsChainWith(TestFiles.services(CLOCK));
        qt(ChainPiiLeakPropertyTest.TRIES)
                .forAll(ChainPiiLeakPropertyTest.batches())
                .checkAssert(payments -> {
                    List<InboundRecord> batch = new ArrayList<>();
                    for (int i = 0; i < payments.size(); i++) {
                        batch.add(StageChainTest.RAW.at(
                                i + 1,
                                Events.payment()
                                        .eventId("pay-json-" + i + "x")
                                        .card(payments.get(i).card())
                                        .email(payments.get(i).email())
                                        .amount(i % 2 == 0 ? "12.30" : "7")
                                        .bytes()));
                    }

                    BatchOutcome outcome = chain.process(batch);

                    assertThat(outcome.accepted()).hasSize(payments.size());
                    for (ProcessedEvent event : outcome.accepted()) {
                        byte[] json = event.json();
                        assertThat(json)
                                .as("the chain's own bytes, not a serialisation")
                                .isSameAs(event.json());
                        String text = new String(json, StandardCharsets.UTF_8);
                        assertThat(text).doesNotContain("\n").doesNotContain("\r");
                        assertThat(read(json)).as(text).isEqualTo(event.event());
                        for (ChainPiiLeakPropertyTest.Pii pii : payments) {
                            assertThat(text).doesNotContain(pii.card()).doesNotContain(pii.email());
                        }
                    }
                });
    }

    @Test
    void anEventWithoutSplicedBytesIsSerialised() {
        StageChain chain = StageChainTest.paymentsChainWith(TestFiles.services(CLOCK));
        byte[] pretty = "{\n  \"eventId\": \"pay-lines-1\",\n  \"x\": 1\n}".getBytes(StandardCharsets.UTF_8);
        byte[] valid = Events.payment().eventId("pay-lines-2x").bytes();
        String spread = new String(valid, StandardCharsets.UTF_8).replace(",", ",\n");

        BatchOutcome outcome = chain.process(List.of(
                StageChainTest.RAW.at(1, pretty), StageChainTest.RAW.at(2, spread.getBytes(StandardCharsets.UTF_8))));

        assertThat(outcome.accepted()).hasSize(1);
        ProcessedEvent event = outcome.accepted().get(0);
        assertThat(new String(event.json(), StandardCharsets.UTF_8))
                .isEqualTo(event.event().toString());
    }

    private static Object read(byte[] json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
