package dev.sluice.generators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.stage.BatchOutcome;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ClickstreamGeneratorTest {

    private static final Instant START = Instant.parse("2026-11-30T19:00:00Z");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static List<GeneratedEvent> generate(long seed, int sessions, int n, double invalidShare) {
        ClickstreamGenerator generator = new ClickstreamGenerator(seed, sessions, 5_000, invalidShare, START);
        List<GeneratedEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            events.add(generator.next());
        }
        return events;
    }

    private static JsonNode json(GeneratedEvent event) {
        try {
            return MAPPER.readTree(event.data());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void sameSeedGivesTheSameClicksByteForByte() {
        List<GeneratedEvent> a = generate(42, 300, 500, 0.05);
        List<GeneratedEvent> b = generate(42, 300, 500, 0.05);

        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).data()).isEqualTo(b.get(i).data());
        }
        assertThat(generate(43, 300, 1, 0).get(0).data()).isNotEqualTo(a.get(0).data());
    }

    @Test
    void concurrentSessionsSetTheRateTwelveSecondsApartEach() {
        // 1,200 visitors acting every ~12 s: about 100 clicks per second of event time
        List<GeneratedEvent> events = generate(7, 1_200, 60_000, 0);
        Instant first = Instant.parse(json(events.get(0)).get("occurredAt").asText());
        Instant last = Instant.parse(
                json(events.get(events.size() - 1)).get("occurredAt").asText());

        double perSecond = events.size() / (Duration.between(first, last).toMillis() / 1000.0);

        assertThat(perSecond).isBetween(90.0, 110.0);
    }

    @Test
    void clicksComeInEventTimeOrderAndEachSessionKeepsItsOwnOrder() {
        List<GeneratedEvent> events = generate(11, 200, 60_000, 0);
        Instant previous = Instant.MIN;
        Map<String, List<Instant>> bySession = new HashMap<>();
        for (GeneratedEvent event : events) {
            JsonNode click = json(event);
            Instant at = Instant.parse(click.get("occurredAt").asText());
            assertThat(at).isAfterOrEqualTo(previous);
            previous = at;
            assertThat(event.partitionKey())
                    .isEqualTo(click.at("/payload/sessionId").asText());
            bySession
                    .computeIfAbsent(event.partitionKey(), s -> new ArrayList<>())
                    .add(at);
        }
        // sessions that ended within the run: about a hundred actions over about twenty minutes
        Instant end = previous;
        List<List<Instant>> finished = bySession.values().stream()
                .filter(times -> times.get(times.size() - 1).isBefore(end.minus(Duration.ofMinutes(2))))
                .filter(times -> times.get(0).isAfter(START.plus(Duration.ofMinutes(1))))
                .toList();
        assertThat(finished).hasSizeGreaterThan(20);
        double actions = finished.stream().mapToInt(List::size).average().orElseThrow();
        double minutes = finished.stream()
                        .mapToLong(t ->
                                Duration.between(t.get(0), t.get(t.size() - 1)).toSeconds())
                        .average()
                        .orElseThrow()
                / 60.0;
        assertThat(actions).isBetween(85.0, 115.0);
        assertThat(minutes).isBetween(15.0, 25.0);
    }

    @Test
    void visitorsViewFavouriteAndFillTheirBasketsAndAFewAreBots() {
        List<GeneratedEvent> events = generate(5, 500, 20_000, 0);
        Map<String, Long> actions = events.stream()
                .collect(
                        Collectors.groupingBy(e -> json(e).at("/payload/action").asText(), Collectors.counting()));
        long bots = events.stream()
                .filter(e -> json(e).at("/payload/userAgent").asText().contains("bot"))
                .count();

        assertThat(actions).containsKeys("view", "favourite", "add_to_basket", "remove_from_basket", "checkout");
        assertThat(actions.get("view")).isGreaterThan(events.size() / 2);
        assertThat(bots).isPositive().isLessThan(events.size() / 10);
    }

    @Test
    void maskAndRekeyStageGivesEveryClickTheVerdictTheLedgerExpects() {
        List<GeneratedEvent> events = generate(3, 400, 3_000, 0.02);
        BatchOutcome outcome = StageRun.process("clickstream", "mask-and-rekey", "clicks-raw", events, START);

        Set<String> expectedAccepted = events.stream()
                .filter(GeneratedEvent::valid)
                .filter(e -> !json(e).at("/payload/userAgent").asText().contains("bot"))
                .map(GeneratedEvent::eventId)
                .collect(Collectors.toSet());
        assertThat(outcome.accepted())
                .extracting(e -> e.eventId())
                .containsExactlyInAnyOrderElementsOf(expectedAccepted);
        assertThat(outcome.filtered()).isPositive();
        Map<String, String> expectedReasons = StageRun.expectedReasons(events);
        Map<String, String> actualReasons = StageRun.actualReasons(outcome);
        assertThat(actualReasons).isEqualTo(expectedReasons);
        assertThat(new HashSet<>(expectedReasons.values()))
                .contains("MALFORMED_JSON", "SCHEMA_INVALID", "MISSING_TIMESTAMP");
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new ClickstreamGenerator(1, 0, 10, 0, START))
                .hasMessage("concurrentSessions must be positive");
        assertThatThrownBy(() -> new ClickstreamGenerator(1, 1, 0, 0, START))
                .hasMessage("pages must be between 1 and 1,000,000");
        assertThatThrownBy(() -> new ClickstreamGenerator(1, 1, 10, 1.5, START))
                .hasMessage("invalidShare must be between 0 and 1");
    }
}
