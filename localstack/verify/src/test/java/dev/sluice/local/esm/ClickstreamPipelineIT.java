package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.kpl.KplAggregates;
import dev.sluice.aws.kpl.UserRecord;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.event.KplFormat;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.testing.Events;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.local.LocalPipeline;
import dev.sluice.verify.reconcile.Producer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** clickstream.yaml's Lambda stage on the emulators: masked, bots filtered, re-keyed by page. */
@ExtendWith(LocalAwsExtension.class)
class ClickstreamPipelineIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    static GeneratedEvent click(int i, boolean bot) {
        String eventId = String.format("clk-it-%06d", i);
        String session = String.format("s-%012x", 0xabc000L + i % 7);
        Events.Click click = Events.click()
                .eventId(eventId)
                .at(Instant.now().minusSeconds(60 - i % 60))
                .session(session)
                .visitor(String.format("v-%012x", 0xdef000L + i % 7))
                .email("visitor" + (i % 7) + "@example.com")
                .ipAddress("198.51.100." + (i % 250))
                .userAgent(bot ? "Googlebot/2.1 (+http://www.google.com/bot.html)" : "Mozilla/5.0 Firefox/133.0")
                .page(String.format("p-%06d", i % 5))
                .url("/products/" + (i % 5))
                .durationMs(1000 + i);
        return new GeneratedEvent(eventId, session, click.bytes(), null);
    }

    @Test
    void maskAndRekeyStageFiltersBotsAndWritesMaskedClicksPartitionedByPage(LocalAws aws, ResourceNames names)
            throws Exception {
        PipelineDefinition clickstream = new DefinitionLoader(
                        SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .load(ROOT.resolve("pipelines/clickstream.yaml"));
        try (LocalPipeline pipeline =
                LocalPipeline.provision(aws, clickstream, names, ROOT).start(Optional.of(Duration.ZERO))) {
            assertThat(pipeline.notRunLocally()).isEmpty();
            List<GeneratedEvent> clicks = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                clicks.add(click(i, i % 6 == 0));
            }
            new Producer(aws.kinesis(), pipeline.resources().streams().get("clicks-raw")).send(clicks, n -> {});

            await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.acknowledged() >= 60);

            String byPage = pipeline.resources().streams().get("clicks-by-page");
            List<Record> rekeyed = new ArrayList<>();
            for (Shard shard :
                    aws.kinesis().listShards(b -> b.streamName(byPage)).shards()) {
                String iterator = aws.kinesis()
                        .getShardIterator(b -> b.streamName(byPage)
                                .shardId(shard.shardId())
                                .shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                        .shardIterator();
                // the KCL stage reads this shard too: a throttled read (5 a second per shard) is read again
                rekeyed.addAll(await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(250))
                        .ignoreException(ProvisionedThroughputExceededException.class)
                        .until(
                                () -> aws.kinesis()
                                        .getRecords(b -> b.shardIterator(iterator))
                                        .records(),
                                records -> true));
            }
            // the hop aggregates per shard (aggregate: true): each record is a KPL aggregate of its
            // shard's views, each user record keyed by its page
            List<UserRecord> views = new ArrayList<>();
            for (Record record : rekeyed) {
                assertThat(KplFormat.hasMagic(record.data().asByteArray())).isTrue();
                views.addAll(KplAggregates.decode(record.data().asByteArray()));
            }
            assertThat(rekeyed.size()).isLessThan(views.size());
            assertThat(views).hasSize(50);
            for (UserRecord view : views) {
                String text = new String(view.data(), StandardCharsets.UTF_8);
                JsonNode event = MAPPER.readTree(text);
                assertThat(view.partitionKey())
                        .isEqualTo(event.at("/payload/pageId").asText());
                assertThat(event.at("/payload/ipAddress").isMissingNode()).isTrue();
                assertThat(event.at("/payload/customerEmail").asText()).startsWith("tok_");
                assertThat(text)
                        .doesNotContain("198.51.100.")
                        .doesNotContain("@example.com")
                        .doesNotContain("bot");
            }
        }
    }
}
