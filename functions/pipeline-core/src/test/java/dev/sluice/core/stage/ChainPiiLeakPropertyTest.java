package dev.sluice.core.stage;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.qt;
import static dev.sluice.core.testing.Theories.strings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.testing.Events;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Whatever valid payments go in, no card number or e-mail address comes out of the payments
 * stage's chain (validate → mask) in anything a sink would write.
 *
 * <p>QuickTheories, 300 examples, fixed seed ({@link dev.sluice.core.testing.Theories});
 * {@link #aChainWithoutItsMaskStepIsCaught} runs the property against a broken chain, which it must
 * falsify.
 */
class ChainPiiLeakPropertyTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    static final int TRIES = 300;

    /** A payment's PII: card number and e-mail address. */
    record Pii(String card, String email) {}

    static Gen<Pii> pii() {
        Gen<String> cards = strings("0123456789", 12, 19);
        Gen<String> word = strings("abcdefghijklmnopqrstuvwxyz", 1, 15);
        Gen<String> local = word.zip(
                word.toOptionals(50),
                (first, second) -> second.map(s -> first + "." + s).orElse(first));
        Gen<String> domain = strings("abcdefghijklmnopqrstuvwxyz", 2, 20);
        Gen<String> emails = local.zip(
                domain, Generate.pick(List.of("nl", "com", "de", "org")), (l, d, tld) -> l + "@" + d + "." + tld);
        return cards.zip(emails, Pii::new);
    }

    static Gen<List<Pii>> batches() {
        return lists().of(pii()).ofSizeBetween(1, 20);
    }

    @Test
    void noRawPiiReachesTheSinks() {
        noRawPiiReachesTheSinks(StageChainTest.paymentsChainWith(TestFiles.services(CLOCK)));
    }

    /** Broken: the payments stage compiled from a definition that lost its mask step. */
    @Test
    void aChainWithoutItsMaskStepIsCaught() throws IOException {
        String yaml = Files.readString(TestFiles.root().resolve("pipelines/payments.yaml"));
        assertThat(yaml).contains("      - mask\n");
        PipelineDefinition withoutMask = TestFiles.loader().parse("payments.yaml", yaml.replace("      - mask\n", ""));
        StageChain broken = StageChain.compile(withoutMask, "validate", TestFiles.services(CLOCK));

        assertFalsified(() -> noRawPiiReachesTheSinks(broken));
    }

    static void noRawPiiReachesTheSinks(StageChain chain) {
        qt(TRIES).forAll(batches()).checkAssert(payments -> {
            List<InboundRecord> batch = new ArrayList<>();
            for (int i = 0; i < payments.size(); i++) {
                batch.add(StageChainTest.RAW.at(
                        i + 1,
                        Events.payment()
                                .eventId("pay-prop-" + i + "x")
                                .card(payments.get(i).card())
                                .email(payments.get(i).email())
                                .amount("12.34")
                                .bytes()));
            }

            BatchOutcome outcome = chain.process(batch);

            assertThat(outcome.deadLetters())
                    .as("every generated payment is valid")
                    .isEmpty();
            StringBuilder written = new StringBuilder();
            for (ProcessedEvent event : outcome.accepted()) {
                written.append(event.event().toString()).append('\n');
            }
            for (Pii pii : payments) {
                assertThat(written).doesNotContain(pii.card()).doesNotContain(pii.email());
            }
        });
    }
}
