package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever valid payments go in, no card number or e-mail address comes out of the payments
 * stage's chain (validate → mask) in anything a sink would write.
 */
class ChainPiiLeakPropertyTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    private static final StageChain CHAIN = StageChainTest.paymentsChainWith(TestFiles.services(CLOCK));

    /** A payment's PII: card number and e-mail address. */
    record Pii(String card, String email) {}

    @Provide
    Arbitrary<Pii> pii() {
        Arbitrary<String> cards =
                Arbitraries.strings().numeric().ofMinLength(12).ofMaxLength(19);
        Arbitrary<String> word =
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(15);
        Arbitrary<String> local = Combinators.combine(word, word.injectNull(0.5))
                .as((first, second) -> second == null ? first : first + "." + second);
        Arbitrary<String> domain =
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(2).ofMaxLength(20);
        Arbitrary<String> emails = Combinators.combine(local, domain, Arbitraries.of("nl", "com", "de", "org"))
                .as((l, d, tld) -> l + "@" + d + "." + tld);
        return Combinators.combine(cards, emails).as(Pii::new);
    }

    @Provide
    Arbitrary<List<Pii>> batches() {
        return pii().list().ofMinSize(1).ofMaxSize(20);
    }

    @Property(tries = 300)
    void noRawPiiReachesTheSinks(@ForAll("batches") List<Pii> payments) throws IOException {
        List<InboundRecord> batch = new ArrayList<>();
        for (int i = 0; i < payments.size(); i++) {
            ObjectNode event = (ObjectNode) TestFiles.MAPPER.readTree(StageChainTest.fixture("payment-valid.json"));
            event.put("eventId", "pay-prop-" + i + "x");
            ObjectNode payload = (ObjectNode) event.get("payload");
            payload.put("cardNumber", payments.get(i).card());
            payload.put("email", payments.get(i).email());
            payload.put("amount", new BigDecimal("12.34"));
            batch.add(StageChainTest.record(
                    Integer.toString(i + 1), event.toString().getBytes(StandardCharsets.UTF_8)));
        }

        BatchOutcome outcome = CHAIN.process(batch);

        assertThat(outcome.deadLetters()).as("every generated payment is valid").isEmpty();
        StringBuilder written = new StringBuilder();
        for (ProcessedEvent event : outcome.accepted()) {
            written.append(event.event().toString()).append('\n');
        }
        for (Pii pii : payments) {
            assertThat(written).doesNotContain(pii.card()).doesNotContain(pii.email());
        }
    }
}
