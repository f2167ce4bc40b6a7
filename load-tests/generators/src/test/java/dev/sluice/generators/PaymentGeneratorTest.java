package dev.sluice.generators;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.BatchOutcome;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import java.nio.file.Path;
import java.time.Clock;
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
        Path root = Path.of(System.getProperty("sluice.root"));
        ObjectMapper mapper = new ObjectMapper();
        SchemaCatalog schemas = SchemaCatalog.fromDirectory(root.resolve("schemas"), mapper);
        PipelineDefinition payments = new DefinitionLoader(schemas).load(root.resolve("pipelines/payments.yaml"));
        StageChain chain = StageChain.compile(
                payments,
                "validate",
                new StageServices(
                        schemas,
                        mapper,
                        Clock.systemUTC(),
                        name -> "test-tokenization-key-32-bytes!!".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        Map.of()));
        List<InboundRecord> records = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            GeneratedEvent e = events.get(i);
            records.add(new InboundRecord(
                    "payments-raw",
                    Position.of("shardId-000000000000", Integer.toString(i + 1)),
                    e.partitionKey(),
                    e.data(),
                    START));
        }

        BatchOutcome outcome = chain.process(records);

        Set<String> expectedValid = events.stream()
                .filter(GeneratedEvent::valid)
                .map(GeneratedEvent::eventId)
                .collect(Collectors.toSet());
        assertThat(outcome.accepted()).extracting(e -> e.eventId()).containsExactlyInAnyOrderElementsOf(expectedValid);
        Map<String, String> expectedReasons = new java.util.HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            if (!events.get(i).valid()) {
                expectedReasons.put(Integer.toString(i + 1), events.get(i).expectedReason());
            }
        }
        Map<String, String> actualReasons = outcome.deadLetters().stream()
                .collect(Collectors.toMap(
                        d -> d.source().position().sequenceNumber(),
                        (DeadLetter d) -> d.code().name()));
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
