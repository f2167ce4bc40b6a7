package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.testing.Events;
import dev.sluice.core.testing.Records;
import dev.sluice.core.testing.Stages;
import dev.sluice.core.testing.Theories;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A chain that reads records in one pass over their tokens gives exactly what the same chain gives
 * reading every record into its tree: the same accepted events (as trees and as the bytes the sinks
 * write), the same dead letters with the same reasons and messages, the same side outputs and
 * partial aggregates. Fed seeded batches of the repository's events, valid and broken in many ways
 * (missing, duplicated and unknown members, members in another order, wrong types, bad numbers and
 * times, escapes, invalid UTF-8, a second document, several lines, a byte order mark).
 */
class OnePassEquivalenceTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    private static final int BATCHES = 60;
    private static final int BATCH_SIZE = 50;

    @Test
    void aStageWhoseMaskDropsAFieldReadsTrees() {
        // clickstream drops ipAddress: its events could never be spliced, a pass would be wasted
        assertThat(Stages.compile("clickstream", "mask-and-rekey", new ObjectMapper(), CLOCK)
                        .readsInOnePass())
                .isFalse();
    }

    @ParameterizedTest(name = "{0}.yaml, stage {1}")
    @CsvSource({"payments, validate", "clickstream, mask-only"})
    void bothWaysOfReadingGiveTheSameOutcome(String pipeline, String stage) {
        for (ObjectMapper mapper : List.of(
                new ObjectMapper(), new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS))) {
            StageChain onePass = stage.equals("mask-only")
                    ? clicksWithoutDrop(mapper)
                    : Stages.compile(pipeline, stage, mapper, CLOCK);
            StageChain trees = onePass.readingTrees();
            assertThat(onePass.readsInOnePass())
                    .as("the stage reads in one pass")
                    .isTrue();
            assertThat(trees.readsInOnePass()).isFalse();

            Random random = new Random(Theories.seed() ^ pipeline.hashCode());
            Records stream = Records.on(pipeline + "-raw").arrivedAt(Instant.parse("2026-11-30T19:59:59Z"));
            int accepted = 0;
            int deadLettered = 0;
            long sequence = 1;
            for (int b = 0; b < BATCHES; b++) {
                List<InboundRecord> batch = new ArrayList<>();
                for (int i = 0; i < BATCH_SIZE; i++) {
                    String json = pipeline.equals("payments") ? payment(random, sequence) : click(random, sequence);
                    batch.add(stream.at(sequence++, mutate(random, json)));
                }

                BatchOutcome expected = trees.process(batch);
                BatchOutcome actual = onePass.process(batch);

                assertSame(expected, actual);
                accepted += actual.accepted().size();
                deadLettered += actual.deadLetters().size();
            }
            // both kinds of outcome were compared, many times
            assertThat(accepted).isGreaterThan(BATCHES * BATCH_SIZE / 4);
            assertThat(deadLettered).isGreaterThan(BATCHES * BATCH_SIZE / 4);
        }
    }

    /**
     * Clicks validated, filtered, routed and counted per page: a chain of every step kind that reads
     * in one pass (the shipped clickstream stage drops a field, so it reads trees).
     */
    private static StageChain clicksWithoutDrop(ObjectMapper mapper) {
        SchemaCatalog schemas = SchemaCatalog.fromClasspath(OnePassEquivalenceTest.class.getClassLoader(), mapper);
        PipelineDefinition definition = new DefinitionLoader(schemas).parse("clicks-one-pass", """
                pipeline: clicks-one-pass
                description: every step kind that names its fields
                streams:
                  clickstream-raw: {shards: 1, retentionHours: 24, classification: internal, schema: clickstream.pageview.v1}
                lakes:
                  clicks-lake: {prefix: clicks/}
                  bot-lake: {prefix: bots/}
                tables:
                  views: {key: pk}
                queues:
                  clicks-dlq: {retentionDays: 1}
                stages:
                  mask-only:
                    input: clickstream-raw
                    consumer: lambda
                    steps:
                      - validate
                      - filter: {when: "durationMs >= 0"}
                      - route:
                          rules:
                            - {when: "userAgent.contains('bot')", to: [bot-lake]}
                          otherwise: [clicks-lake]
                      - aggregate: {name: views-per-page, key: payload.pageId, window: 1m, functions: [count], table: views}
                    sinks:
                      - lake: clicks-lake
                      - lake: bot-lake
                    batching: {batchSize: 100, batchingWindowSeconds: 1, parallelizationFactor: 1, startingPosition: TRIM_HORIZON}
                    failure: {deadLetterQueue: clicks-dlq, maxRetryAttempts: 3, maxRecordAgeSeconds: 3600, bisectOnError: true}
                access:
                  source-operator: [clickstream-raw]
                """);
        return StageChain.compile(
                definition, "mask-only", new StageServices(schemas, mapper, CLOCK, Stages.SECRETS, Map.of()));
    }

    private static void assertSame(BatchOutcome expected, BatchOutcome actual) {
        assertThat(actual.accepted()).hasSameSizeAs(expected.accepted());
        for (int i = 0; i < expected.accepted().size(); i++) {
            ProcessedEvent want = expected.accepted().get(i);
            ProcessedEvent got = actual.accepted().get(i);
            String label = new String(want.source().data(), StandardCharsets.UTF_8);
            assertThat(got).as(label).isEqualTo(want);
            assertThat(got.routes()).as(label).isEqualTo(want.routes());
            assertThat(new String(got.json(), StandardCharsets.UTF_8))
                    .as(label)
                    .isEqualTo(new String(want.json(), StandardCharsets.UTF_8));
        }
        assertThat(letters(actual.deadLetters())).isEqualTo(letters(expected.deadLetters()));
        assertThat(letters(actual.sideOutputs())).isEqualTo(letters(expected.sideOutputs()));
        assertThat(actual.aggregates()).isEqualTo(expected.aggregates());
        assertThat(actual.filtered()).isEqualTo(expected.filtered());
    }

    private static List<String> letters(List<DeadLetter> letters) {
        return letters.stream()
                .map(l -> l.source().position() + " " + l.code() + " " + l.detail())
                .toList();
    }

    private static String payment(Random random, long n) {
        String[] currencies = {"EUR", "USD", "GBP", "JPY", "EUR", "USD", "GBP", "JPY", "eur"};
        String[] amounts = {
            "12.30", "7", "0.01", "1000000", "999999.99", "12.24", "3.5", "1.5E1", "250", "12.345", "-1", "0", "1e400"
        };
        return Events.payment()
                .eventId("pay-" + Long.toHexString(0x10000000L + n))
                .customer("cust-" + (1_000_000 + random.nextInt(9_000_000)))
                .card(String.valueOf(4_000_000_000_000_000L + random.nextInt(1_000_000)))
                .email("p" + n + "@example.org")
                .amount(amounts[random.nextInt(amounts.length)])
                .currency(currencies[random.nextInt(currencies.length)])
                .merchantName(random.nextBoolean() ? "Café Ünïcode" : "HEMA")
                .at(Instant.parse("2026-11-30T19:00:00Z").plusSeconds(random.nextInt(7200)))
                .json();
    }

    private static String click(Random random, long n) {
        String[] agents = {"Mozilla/5.0", "Googlebot/2.1", "curl/8"};
        return Events.click()
                .eventId("clk-" + Long.toHexString(0x10000000L + n))
                .session(String.format("s-%012x", random.nextInt(50)))
                .visitor(String.format("v-%012x", random.nextInt(500)))
                .email("v" + n + "@example.org")
                .ipAddress(random.nextBoolean() ? "192.0.2." + random.nextInt(255) : "2001:db8::" + random.nextInt(99))
                .durationMs(random.nextInt(100_000))
                .at(Instant.parse("2026-11-30T19:00:00Z").plusSeconds(random.nextInt(7200)))
                .json()
                .replace("\"userAgent\":\"", "\"userAgent\":\"" + agents[random.nextInt(agents.length)] + " ");
    }

    /** Leaves most records valid; breaks or reshapes the others in one of many ways. */
    private static byte[] mutate(Random random, String json) {
        List<UnaryOperator<String>> mutations = List.of(
                s -> s,
                s -> s,
                s -> s,
                s -> s.replaceFirst("\\{", "{\"eventId\":\"dup-12345678\","), // a duplicate member
                s -> s.replaceFirst("\"payload\":\\{", "\"payload\":{\"extra\":{\"a\":1,\"a\":2},"),
                s -> s.replaceFirst("\\{", "{\"unknown\":1,"),
                s -> s + " ",
                s -> s + " x",
                s -> s + "{}",
                s -> "[" + s + "]",
                s -> s.replace(",", ",\n"), // several lines: the bytes cannot be spliced
                s -> s.replaceFirst(",", ",\r"), // a lone carriage return is a line break too
                s -> s + "\r\n", // and so is a trailing one, outside the object
                s -> "\uFEFF" + s, // a byte order mark
                s -> s.replaceFirst("\"occurredAt\":\"[^\"]*\"", "\"occurredAt\":\"2016-12-31T23:59:60Z\""),
                s -> s.replaceFirst("\"occurredAt\":\"[^\"]*\"", "\"occurredAt\":\"yesterday\""),
                s -> s.replaceFirst("\"occurredAt\":\"[^\"]*\",", ""),
                s -> s.replaceFirst("\"type\":\"[^\"]*\"", "\"type\":\"other.v1\""),
                s -> s.replaceFirst("\"source\":\"[^\"]*\",", ""), // a required member missing
                s -> s.replaceFirst(",\"[a-zA-Z]+\":\"[^\"]*\"}", "}"), // the last member of an object
                s -> s.replaceFirst("\"key\":\"[^\"]*\"", "\"key\":null"),
                s -> s.replaceFirst("\"eventId\":\"[^\"]*\"", "\"eventId\":7"),
                s -> s.replaceFirst("\\{", "{\"ingestedAt\":\"2026-11-30T19:59:59.5+01:00\","),
                s -> s.replaceFirst("\\{", "{\"ingestedAt\":42,"),
                s -> s.replaceFirst("@", "\\\\u0040"), // an escape in a masked value
                s -> s.replaceFirst("\"eventId\":\"(...)", "\"eventId\":\"$1\\\\u0041"), // an escape elsewhere
                s -> s.replaceFirst("é", "\\\\u00e9"),
                s -> s.replaceFirst("é", "\\\\ud83d\\\\ude00"), // an escaped surrogate pair
                s -> s.replaceFirst("é", "\\\\ud83d"), // an unpaired surrogate escape
                s -> s.replaceFirst("\"source\":\"", "\"source\":\"\\\\u0000"),
                s -> s.replaceFirst("\"source\":\"", "\"source\":\"\t"), // a raw control character
                s -> s.replaceFirst("\\}$", ""), // truncated
                s -> s.replaceFirst(":", "::"),
                // members in another order, or a name written with an escape: still valid, but the
                // order the reader learnt no longer predicts the names
                s -> s.replaceFirst("\"source\":\"([^\"]*)\",(.*)\\}$", "$2,\"source\":\"$1\"}"),
                s -> s.replaceFirst(
                        "\"payload\":\\{(\"[^\"]+\":\"[^\"]*\"),(\"[^\"]+\":\"[^\"]*\")", "\"payload\":{$2,$1"),
                s -> s.replaceFirst("\"source\":", "\"sour\\\\u0063e\":"));
        String mutated = random.nextBoolean()
                ? json
                : mutations.get(random.nextInt(mutations.size())).apply(json);
        if (random.nextInt(4) == 0) {
            // two at once: a reshaped record that is also broken
            mutated = mutations.get(random.nextInt(mutations.size())).apply(mutated);
        }
        byte[] bytes = mutated.getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(40) == 0) {
            bytes[random.nextInt(bytes.length)] = (byte) 0xC3; // invalid UTF-8 somewhere
        }
        return bytes;
    }
}
