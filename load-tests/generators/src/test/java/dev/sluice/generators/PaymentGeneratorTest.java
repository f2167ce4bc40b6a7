package dev.sluice.generators;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.stage.BatchOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PaymentGeneratorTest {

    private static final Instant START = Instant.parse("2026-11-30T08:00:00Z");

    private static List<GeneratedEvent> generate(long seed, int n, double invalidShare) {
        PaymentGenerator generator = new PaymentGenerator(seed, 1_000_000, invalidShare, START);
        List<GeneratedEvent> events = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            events.add(generator.next());
        }
        return events;
    }

    @Test
    void sameSeedGivesTheSameEventsByteForByte() {
        List<GeneratedEvent> a = generate(42, 200, 0.05);
        List<GeneratedEvent> b = generate(42, 200, 0.05);

        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).data()).isEqualTo(b.get(i).data());
        }
        assertThat(generate(43, 1, 0).get(0).data()).isNotEqualTo(a.get(0).data());
    }

    @Test
    void pipelineGivesEveryEventTheVerdictTheLedgerExpects() {
        List<GeneratedEvent> events = generate(7, 2_000, 0.02);
        BatchOutcome outcome = StageRun.process("payments", "validate", "payments-raw", events, START);

        Set<String> expectedValid = events.stream()
                .filter(GeneratedEvent::valid)
                .map(GeneratedEvent::eventId)
                .collect(Collectors.toSet());
        assertThat(outcome.accepted()).extracting(e -> e.eventId()).containsExactlyInAnyOrderElementsOf(expectedValid);
        Map<String, String> expectedReasons = StageRun.expectedReasons(events);
        Map<String, String> actualReasons = StageRun.actualReasons(outcome);
        assertThat(actualReasons).isEqualTo(expectedReasons);
        assertThat(expectedReasons).hasSizeBetween(20, 70);
        assertThat(new HashSet<>(expectedReasons.values()))
                .contains("MALFORMED_JSON", "SCHEMA_INVALID", "MISSING_TIMESTAMP");
    }

    @Test
    void cardNumbersPassTheLuhnCheck() {
        for (int customer : new int[] {0, 1, 42, 999_999}) {
            String pan = PaymentGenerator.cardNumber(customer);
            assertThat(pan).hasSize(16);
            int sum = 0;
            for (int i = 0; i < pan.length(); i++) {
                int d = pan.charAt(pan.length() - 1 - i) - '0';
                if (i % 2 == 1) {
                    d = d * 2 > 9 ? d * 2 - 9 : d * 2;
                }
                sum += d;
            }
            assertThat(sum % 10).as(pan).isZero();
        }
    }
}
