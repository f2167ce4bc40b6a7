package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.TestFiles;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.MemoryAggregates;
import dev.sluice.core.testing.MemoryDeadLetters;
import dev.sluice.core.testing.MemorySink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Every case of the committed catalogue {@code bad-input/records/} goes through the payments stage
 * (the real definition, schema, chain and batch processor, in one batch) and ends as its manifest
 * {@code expected.tsv} says: accepted, or dead-lettered with the reason code, its bytes intact.
 */
class BadInputCatalogueTest {

    static final Path CATALOGUE = TestFiles.root().resolve("bad-input/records");

    /** One line of the manifest. */
    record Case(String file, String expected, String why) {
        byte[] data() {
            try {
                return Files.readAllBytes(CATALOGUE.resolve(file));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(CATALOGUE.resolve("expected.tsv"), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] columns = line.split("\t", -1);
            assertThat(columns)
                    .as("manifest line '%s': case, expected, why", line)
                    .hasSize(3);
            cases.add(new Case(columns[0], columns[1], columns[2]));
        }
        return cases;
    }

    @Test
    void manifestNamesEveryCaseFileOnceWithAKnownOutcomeAndAReason() throws IOException {
        List<Case> cases = cases();
        Set<String> files;
        try (Stream<Path> list = Files.list(CATALOGUE)) {
            files = list.map(p -> p.getFileName().toString())
                    .filter(name -> !name.equals("expected.tsv") && !name.startsWith("."))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        assertThat(cases).extracting(Case::file).doesNotHaveDuplicates();
        assertThat(new TreeSet<>(cases.stream().map(Case::file).toList())).isEqualTo(files);
        Set<String> outcomes = Stream.concat(
                        Stream.of("ACCEPTED"), Stream.of(ReasonCode.values()).map(Enum::name))
                .collect(Collectors.toSet());
        assertThat(cases).allSatisfy(c -> {
            assertThat(outcomes).as(c.file()).contains(c.expected());
            assertThat(c.why()).as(c.file()).isNotBlank();
        });
    }

    @Test
    void everyCataloguedRecordEndsAsItsManifestSaysAndNothingIsLost() throws IOException {
        List<Case> cases = cases();
        List<InboundRecord> batch = new ArrayList<>();
        Map<String, Case> bySequence = new LinkedHashMap<>();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            String sequence = Long.toString(49_000_000_000L + i);
            bySequence.put(sequence, c);
            byte[] data = c.data();
            batch.add(StageChainTest.RAW.arrivedAt(arrival(data)).at(sequence, data));
        }
        MemorySink sink = new MemorySink();
        MemoryAggregates aggregates = new MemoryAggregates();
        MemoryDeadLetters dlq = new MemoryDeadLetters();
        BatchProcessor processor =
                new BatchProcessor(StageChainTest.paymentsChain(), Map.of(sink.name(), sink), aggregates, dlq);

        BatchResult result = processor.process(batch);

        assertThat(result.complete()).isTrue();
        Map<String, ProcessedEvent> accepted = sink.written().stream()
                .collect(Collectors.toMap(e -> e.position().sequenceNumber(), e -> e));
        Map<String, List<DeadLetter>> letters = dlq.sent().stream()
                .collect(Collectors.groupingBy(d -> d.source().position().sequenceNumber()));
        ObjectMapper mapper = TestFiles.MAPPER;
        SoftAssertions soft = new SoftAssertions();
        bySequence.forEach((sequence, c) -> {
            List<DeadLetter> got = letters.getOrDefault(sequence, List.of());
            String what = c.file() + " (" + c.why() + ")";
            if (c.expected().equals("ACCEPTED")) {
                soft.assertThat(got).as(what + ": dead letters").isEmpty();
                soft.assertThat(accepted.containsKey(sequence))
                        .as(what + ": accepted")
                        .isTrue();
                ProcessedEvent event = accepted.get(sequence);
                if (event != null) {
                    // the one reading every sink writes: its UTF-8 bytes decode to the same text and
                    // parse to the same event
                    String text = event.event().toString();
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    soft.assertThat(new String(bytes, StandardCharsets.UTF_8))
                            .as(what + ": UTF-8 round trip")
                            .isEqualTo(text);
                    try {
                        soft.assertThat(mapper.readTree(bytes))
                                .as(what + ": re-read")
                                .isEqualTo(event.event());
                    } catch (IOException e) {
                        soft.fail(what + ": the written event cannot be read back: " + e);
                    }
                }
            } else {
                soft.assertThat(accepted.containsKey(sequence))
                        .as(what + ": accepted")
                        .isFalse();
                soft.assertThat(got).as(what + ": dead letters").hasSize(1);
                if (got.size() == 1) {
                    DeadLetter letter = got.get(0);
                    soft.assertThat(letter.code().name())
                            .as(what + ": reason code")
                            .isEqualTo(c.expected());
                    soft.assertThat(letter.detail())
                            .as(what + ": one precise line")
                            .isNotBlank()
                            .doesNotContain("\n");
                    soft.assertThat(letter.source().data())
                            .as(what + ": bytes kept")
                            .isEqualTo(c.data());
                }
            }
        });
        soft.assertAll();
        assertThat(result.received()).isEqualTo(cases.size());
        assertThat(result.accepted() + result.deadLettered()).isEqualTo(cases.size());
    }

    /**
     * The record arrived a minute after its event time when it has one (so that old events, such
     * as the leap-second cases, are on time for their window), else at a fixed time.
     */
    private static Instant arrival(byte[] data) {
        try {
            Instant occurredAt = Timestamps.parse(
                    TestFiles.MAPPER.readTree(data).path("occurredAt").asText());
            if (occurredAt != null) {
                return occurredAt.plusSeconds(60);
            }
        } catch (IOException | RuntimeException e) {
            // not JSON: the fixed time below
        }
        return Instant.parse("2026-11-30T19:59:59Z");
    }
}
