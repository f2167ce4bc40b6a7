package dev.sluice.core.stage;

import static dev.sluice.core.testing.Events.payment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.DefinitionException;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.enrich.ReferenceLoader;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.testing.Records;
import dev.sluice.core.window.PartialAggregate;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The filter, route, enrich and aggregate steps inside a compiled chain. */
class StepsTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);

    /** A one-stage payments pipeline with the given steps (YAML list items, indented 6). */
    static String pipeline(String steps, String extraSinks) {
        return """
                pipeline: shop
                streams:
                  raw:
                    shards: 1
                    schema: payments.transaction.v1
                  by-merchant:
                    shards: 1
                    schema: payments.transaction.v1
                    partitionKey: payload.merchant.id
                lakes:
                  lake: {prefix: shop/}
                tables:
                  by-id: {key: eventId}
                  big: {key: eventId}
                  merchants: {key: pk}
                  spend: {key: pk}
                queues:
                  dlq: {}
                references:
                  merchant-risk:
                    table: merchants
                    onMiss: default
                    default: {risk: unknown}
                stages:
                  s:
                    input: raw
                    steps:
                """ + steps + """
                    sinks:
                      - lake: lake
                      - table: by-id
                """ + extraSinks + """
                    failure:
                      deadLetterQueue: dlq
                """;
    }

    static PipelineDefinition load(String yaml) {
        return TestFiles.loader().parse("shop.yaml", yaml);
    }

    /** The event time of most payments these tests build. */
    static final String TEN = "2026-11-30T10:00:00Z";

    /** Records of the stream {@code raw}, partition key {@code k}. */
    static final Records RAW = Records.on("raw").partitionKey("k");

    @Test
    void filterDropsEventsWhoseExpressionIsFalseWithoutDeadLettering() throws IOException {
        PipelineDefinition shop =
                load(pipeline("      - validate\n      - filter: {when: \"amount > 100.0 && country != 'NL'\"}\n", ""));
        StageChain chain = StageChain.compile(shop, "s", TestFiles.services(CLOCK));

        BatchOutcome outcome = chain.process(List.of(
                RAW.at(
                        "1",
                        payment()
                                .eventId("pay-00000001")
                                .amount(250.5)
                                .country("DE")
                                .occurredAt(TEN)),
                RAW.at("2", payment().eventId("pay-00000002").amount(250.5).occurredAt(TEN)),
                RAW.at(
                        "3",
                        payment()
                                .eventId("pay-00000003")
                                .amount(99.99)
                                .country("DE")
                                .occurredAt(TEN)),
                RAW.at(
                        "4",
                        payment()
                                .eventId("pay-00000004")
                                .amount(1000)
                                .country("FR")
                                .occurredAt(TEN))));

        assertThat(outcome.accepted())
                .extracting(ProcessedEvent::eventId)
                .containsExactly("pay-00000001", "pay-00000004");
        assertThat(outcome.filtered()).isEqualTo(2);
        assertThat(outcome.deadLetters()).isEmpty();
    }

    @Test
    void badExpressionFailsWhenTheDefinitionLoads() {
        assertThatThrownBy(() -> load(pipeline("      - filter: {when: \"amout > 100\"}\n", "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessageStartingWith("shop.yaml:28: stages.s.steps[0].filter.when: 'amout > 100' does not compile:")
                .hasMessageContaining("undeclared reference to 'amout'");
        assertThatThrownBy(() -> load(pipeline("      - filter: {when: \"country > 3\"}\n", "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("stages.s.steps[0].filter.when: 'country > 3' does not compile")
                .hasMessageContaining("no matching overload");
        assertThatThrownBy(() -> load(pipeline("      - filter: {when: \"amount\"}\n", "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("does not compile");
    }

    @Test
    void routeSendsEachEventToTheSinksOfTheFirstMatchingRule() throws IOException {
        PipelineDefinition shop = load(pipeline(
                "      - route:\n          rules:\n            - {when: \"amount >= 1000\", to: [big, lake]}\n"
                        + "          otherwise: [lake, by-id]\n",
                "      - table: big\n"));
        StageChain chain = StageChain.compile(shop, "s", TestFiles.services(CLOCK));
        Map<String, List<String>> written = new java.util.LinkedHashMap<>();
        Map<String, EventSink> sinks = new java.util.LinkedHashMap<>();
        for (String target : List.of("lake", "by-id", "big")) {
            written.put(target, new ArrayList<>());
            sinks.put(target, new EventSink() {
                @Override
                public String name() {
                    return target;
                }

                @Override
                public SinkReport write(List<ProcessedEvent> events) {
                    events.forEach(e -> written.get(target).add(e.eventId()));
                    return new SinkReport(events.size(), 0);
                }
            });
        }
        BatchProcessor processor = new BatchProcessor(chain, sinks, null, letters -> {});

        processor.process(List.of(
                RAW.at(
                        "1",
                        payment()
                                .eventId("pay-00000001")
                                .amount(5000)
                                .country("DE")
                                .occurredAt(TEN)),
                RAW.at(
                        "2",
                        payment()
                                .eventId("pay-00000002")
                                .amount(12)
                                .country("DE")
                                .occurredAt(TEN))));

        assertThat(written.get("big")).containsExactly("pay-00000001");
        assertThat(written.get("lake")).containsExactly("pay-00000001", "pay-00000002");
        assertThat(written.get("by-id")).containsExactly("pay-00000002");
    }

    @Test
    void routeToAStageSinkThatDoesNotExistFailsTheDefinition() {
        assertThatThrownBy(() -> load(pipeline(
                        "      - route:\n          rules:\n            - {when: \"amount >= 1000\", to: [nowhere]}\n"
                                + "          otherwise: [lake]\n",
                        "")))
                .hasMessage("shop.yaml:30: stages.s.steps[0].route.rules[0].to: 'nowhere' is not a sink of this"
                        + " stage (sinks: [by-id, lake])");
    }

    @Test
    void enrichmentMustJoinOnTheStreamsPartitionKey() {
        assertThatThrownBy(() -> load(pipeline(
                        "      - enrich: {reference: merchant-risk, key: payload.merchant.id, into: merchant}\n", "")))
                .isInstanceOf(DefinitionException.class)
                .hasMessage("shop.yaml:28: stages.s.steps[0].enrich.key: joins on payload.merchant.id but stream"
                        + " 'raw' is partitioned by key: add a re-key hop — an earlier stage writing to a stream with"
                        + " partitionKey: payload.merchant.id — so each consumer needs only its own partition of the"
                        + " reference data");
    }

    @Test
    void enrichCopiesTheReferenceItemAndAppliesTheMissPolicy() throws IOException {
        String yaml = pipeline("      - validate\n", "      - stream: by-merchant\n") + """
                  enrich:
                    input: by-merchant
                    deduplicate: by-id
                    steps:
                      - enrich: {reference: merchant-risk, key: payload.merchant.id, into: merchant}
                      - filter: {when: "merchant.risk != 'high'"}
                    sinks:
                      - table: by-id
                    failure:
                      deadLetterQueue: dlq
                """;
        PipelineDefinition shop = load(yaml);
        JsonNode high = TestFiles.MAPPER.readTree("{\"pk\":\"m-000001\",\"risk\":\"high\"}");
        JsonNode low = TestFiles.MAPPER.readTree("{\"pk\":\"m-000002\",\"risk\":\"low\"}");
        int[] loads = {0};
        ReferenceLoader loader = new ReferenceLoader() {
            @Override
            public Map<String, JsonNode> loadAll() {
                loads[0]++;
                return Map.of("m-000001", high, "m-000002", low);
            }

            @Override
            public String describe() {
                return "memory";
            }
        };
        ReferenceCache cache = new ReferenceCache("merchant-risk", loader, 10, Duration.ofMinutes(5), CLOCK);
        StageChain chain = StageChain.compile(
                shop,
                "enrich",
                new StageServices(
                        TestFiles.schemas(),
                        TestFiles.MAPPER,
                        CLOCK,
                        TestFiles.SECRETS,
                        Map.of("merchant-risk", cache)));
        List<InboundRecord> batch = new ArrayList<>();
        int n = 0;
        for (String merchant : List.of("m-000001", "m-000002", "m-999999")) {
            n++;
            batch.add(RAW.at(
                    n,
                    payment()
                            .eventId("pay-0000000" + n)
                            .amount(10)
                            .occurredAt(TEN)
                            .merchant(merchant)));
        }

        chain.refreshReferences();
        chain.refreshReferences();
        BatchOutcome outcome = chain.process(batch);

        assertThat(loads[0]).as("loaded once, not per batch").isEqualTo(1);
        assertThat(outcome.filtered()).isEqualTo(1);
        assertThat(outcome.accepted())
                .extracting(e -> e.event().at("/merchant/risk").asText())
                .containsExactly("low", "unknown");
    }

    @Test
    void missingReferenceItemIsDeadLetteredWhenThePolicySaysSo() throws IOException {
        String yaml = pipeline("      - validate\n", "      - stream: by-merchant\n")
                        .replace("onMiss: default", "onMiss: dead-letter")
                        .replace("default: {risk: unknown}", "maxEntries: 10")
                + """
                  enrich:
                    input: by-merchant
                    deduplicate: by-id
                    steps:
                      - enrich: {reference: merchant-risk, key: payload.merchant.id, into: merchant}
                    sinks:
                      - table: by-id
                    failure:
                      deadLetterQueue: dlq
                """;
        PipelineDefinition shop = load(yaml);
        ReferenceCache empty = new ReferenceCache(
                "merchant-risk",
                new ReferenceLoader() {
                    @Override
                    public Map<String, JsonNode> loadAll() {
                        return Map.of();
                    }

                    @Override
                    public String describe() {
                        return "memory";
                    }
                },
                10,
                Duration.ofMinutes(5),
                CLOCK);
        StageChain chain = StageChain.compile(
                shop,
                "enrich",
                new StageServices(TestFiles.schemas(), TestFiles.MAPPER, CLOCK, null, Map.of("merchant-risk", empty)));
        chain.refreshReferences();

        BatchOutcome outcome = chain.process(
                List.of(RAW.at("1", payment().eventId("pay-00000001").amount(10).occurredAt(TEN))));

        assertThat(outcome.deadLetters()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ReasonCode.ENRICHMENT_MISS);
            assertThat(d.reason())
                    .isEqualTo("ENRICHMENT_MISS: no 'merchant-risk' item for payload.merchant.id =" + " \"m-004512\"");
        });
    }

    @Test
    void aggregateEmitsOnePartialPerKeyAndWindowAndReportsLateEventsWhichStillReachTheSinks() throws IOException {
        PipelineDefinition shop = load(pipeline(
                "      - validate\n      - aggregate: {name: spend, key: payload.customerId, value: payload.amount,"
                        + " window: 1m, allowedLateness: 30s, functions: [count, sum, max], table: spend}\n",
                ""));
        StageChain chain = StageChain.compile(shop, "s", TestFiles.services(CLOCK));
        Records onTime = RAW.arrivedAt(Instant.parse("2026-11-30T10:01:10Z"));

        BatchOutcome outcome = chain.process(List.of(
                onTime.at("1", payment().eventId("pay-00000001").amount(10.10).occurredAt("2026-11-30T10:00:05Z")),
                onTime.at("2", payment().eventId("pay-00000002").amount(20.20).occurredAt("2026-11-30T10:00:55Z")),
                onTime.at("3", payment().eventId("pay-00000003").amount(5).occurredAt("2026-11-30T10:01:01Z")),
                // window 09:58 closed at 09:59 + 30 s; this record arrived at 10:01:10
                onTime.at("4", payment().eventId("pay-00000004").amount(99).occurredAt("2026-11-30T09:58:30Z"))));

        assertThat(outcome.aggregates())
                .extracting(
                        PartialAggregate::windowStart,
                        PartialAggregate::count,
                        p -> p.sum().stripTrailingZeros().toPlainString(),
                        p -> p.max().stripTrailingZeros().toPlainString())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Instant.parse("2026-11-30T10:00:00Z"), 2L, "30.3", "20.2"),
                        org.assertj.core.groups.Tuple.tuple(Instant.parse("2026-11-30T10:01:00Z"), 1L, "5", "5"));
        assertThat(outcome.sideOutputs()).singleElement().satisfies((DeadLetter late) -> {
            assertThat(late.code()).isEqualTo(ReasonCode.LATE);
            assertThat(late.source().position().sequenceNumber()).isEqualTo("4");
        });
        assertThat(outcome.accepted()).hasSize(4);
    }
}
