package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.TestFiles;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.enrich.ReferenceLoader;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.testing.Events;
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

/** pipelines/clickstream.yaml through both of its stages' chains. */
class ClickstreamPipelineTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T20:00:00Z"), ZoneOffset.UTC);
    private final PipelineDefinition clickstream =
            TestFiles.loader().load(TestFiles.root().resolve("pipelines/clickstream.yaml"));

    @Test
    void maskAndRekeyStageProtectsPiiAndDropsBots() throws IOException {
        StageChain chain = StageChain.compile(clickstream, "mask-and-rekey", TestFiles.services(CLOCK));
        Events.Click bot = Events.click().userAgent("Googlebot/2.1").eventId("clk-bot0000001");
        Records raw = Records.on("clicks-raw");

        BatchOutcome outcome = chain.process(List.of(raw.at(1, Events.click()), raw.at(2, bot)));

        assertThat(outcome.filtered()).isEqualTo(1);
        JsonNode masked = outcome.accepted().get(0).event();
        assertThat(masked.at("/payload/ipAddress").isMissingNode())
                .as("ipAddress is dropped")
                .isTrue();
        assertThat(masked.at("/payload/customerEmail").asText()).startsWith("tok_");
        assertThat(masked.toString()).doesNotContain("203.0.113.42").doesNotContain("m.vos@example.nl");
        assertThat(masked.at("/payload/pageId").asText()).isEqualTo("p-004211");
    }

    @Test
    void pageCountsStageEnrichesFromThePageCatalogueAndCountsPerPagePerMinute() throws IOException {
        JsonNode espresso = TestFiles.MAPPER.readTree(
                "{\"pageId\":\"p-004211\",\"category\":\"kitchen\",\"title\":\"Espresso machine X2\"}");
        ReferenceCache pages = new ReferenceCache(
                "pages",
                new ReferenceLoader() {
                    @Override
                    public Map<String, JsonNode> loadAll() {
                        return Map.of("p-004211", espresso);
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
                clickstream,
                "page-counts",
                new StageServices(
                        TestFiles.schemas(), TestFiles.MAPPER, CLOCK, TestFiles.SECRETS, Map.of("pages", pages)));
        chain.refreshReferences();
        List<InboundRecord> batch = new ArrayList<>();
        String[][] clicks = {
            {"p-004211", "2026-11-30T19:14:03Z"}, {"p-004211", "2026-11-30T19:14:59Z"},
            {"p-004211", "2026-11-30T19:15:00Z"}, {"p-000777", "2026-11-30T19:14:30Z"}
        };
        Records byPage = Records.on("clicks-by-page").arrivedAt(Instant.parse("2026-11-30T19:15:10Z"));
        for (int i = 0; i < clicks.length; i++) {
            batch.add(byPage.at(
                    i + 1,
                    Events.click()
                            .eventId("clk-000000000" + i)
                            .occurredAt(clicks[i][1])
                            .page(clicks[i][0])));
        }

        BatchOutcome outcome = chain.process(batch);

        assertThat(outcome.accepted())
                .extracting(e -> e.event().at("/page/category").asText())
                .containsExactly("kitchen", "kitchen", "kitchen", "unknown");
        assertThat(outcome.aggregates())
                .extracting(PartialAggregate::key, p -> p.windowStart().toString(), PartialAggregate::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("p-000777", "2026-11-30T19:14:00Z", 1L),
                        org.assertj.core.groups.Tuple.tuple("p-004211", "2026-11-30T19:14:00Z", 2L),
                        org.assertj.core.groups.Tuple.tuple("p-004211", "2026-11-30T19:15:00Z", 1L));
        assertThat(outcome.aggregates())
                .allSatisfy(p -> assertThat(p.aggregate()).isEqualTo("views-per-page-per-minute"));
    }
}
