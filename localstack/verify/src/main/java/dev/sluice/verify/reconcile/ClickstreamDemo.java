package dev.sluice.verify.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.kcl.KclTimings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The demo's clickstream part: {@code pipelines/clickstream.yaml} on the local stack, its Lambda
 * stage ({@code mask-and-rekey}) behind the local event-source mapping and its KCL stage ({@code
 * page-counts}) run by local KCL workers. Page views (a share of them from bots, which the first
 * stage filters out) go in; every human view must be counted exactly once in its page's minute in
 * {@code page-views-per-minute}.
 */
public final class ClickstreamDemo {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String AGGREGATE = "views-per-page-per-minute";
    private static final int PAGES = 50;

    /** The Lambda stage in front of the re-key hop. */
    public static final String FIRST_STAGE = "mask-and-rekey";

    /** The re-key hop's stream. */
    public static final String HOP = "clicks-by-page";

    /**
     * @param clicks views produced
     * @param bots of them from bots (filtered before the KCL stage)
     * @param expected human views, which the KCL stage must count
     * @param counted views counted in the aggregate table
     * @param lost (page, minute) counts short of the ledger, summed
     * @param duplicates (page, minute) counts beyond the ledger, summed
     * @param workers KCL workers that ran the stage
     * @param deliveries records handed to the Lambda stage, redeliveries included
     * @param crashes injected crashes of the Lambda stage that happened
     * @param hopRecords user records in the re-key hop's stream (more than {@code expected}: copies put
     *     again; an aggregate counts as the user records it holds)
     */
    public record Result(
            long clicks,
            long bots,
            long expected,
            long counted,
            long lost,
            long duplicates,
            int workers,
            long deliveries,
            int crashes,
            long hopRecords) {
        public boolean reconciled() {
            return lost == 0 && duplicates == 0 && counted == expected;
        }
    }

    private ClickstreamDemo() {}

    public static Result run(
            LocalAws aws, PipelineDefinition clickstream, Path root, int clicks, int workers, LongConsumer progress) {
        return run(aws, clickstream, root, clicks, workers, progress, null, pipeline -> {});
    }

    /**
     * Like {@link #run(LocalAws, PipelineDefinition, Path, int, int, LongConsumer)}, with fresh
     * resource names (when {@code names} is given) and {@code beforeStart} applied to the provisioned
     * pipeline before it starts: the fault scenarios arm their faults there.
     */
    public static Result run(
            LocalAws aws,
            PipelineDefinition clickstream,
            Path root,
            int clicks,
            int workers,
            LongConsumer progress,
            dev.sluice.emulators.ResourceNames names,
            java.util.function.Consumer<LocalPipeline> beforeStart) {
        LocalPipeline provisioned =
                LocalPipeline.provision(aws, clickstream, names, root).withKclWorkers(workers, KclTimings.LOCAL);
        beforeStart.accept(provisioned);
        try (LocalPipeline pipeline = provisioned.start()) {
            Instant now = Instant.now();
            List<GeneratedEvent> events = new ArrayList<>(clicks);
            Map<String, Long> expected = new TreeMap<>();
            long bots = 0;
            for (int i = 0; i < clicks; i++) {
                boolean bot = i % 10 == 9;
                bots += bot ? 1 : 0;
                Instant occurredAt = now.minusMillis(i % 1000);
                events.add(click(i, bot, occurredAt));
                if (!bot) {
                    long minute = Math.floorDiv(occurredAt.toEpochMilli(), 60_000L) * 60_000L;
                    expected.merge(page(i) + " " + Instant.ofEpochMilli(minute), 1L, Long::sum);
                }
            }
            List<LedgerEntry> ledger = new Producer(
                            pipeline.producerKinesis(),
                            pipeline.resources().streams().get("clicks-raw"))
                    .send(events, n -> {});
            pipeline.awaitAcknowledged(ledger.size(), Duration.ofMinutes(2), n -> {});
            // every put into the hop happened before its batch was acknowledged: the hop is complete
            // now; wait until the KCL stage checkpointed past its end, so that copies count too
            Map<String, String> hopEnd = new TreeMap<>();
            long hopRecords = hopTail(aws, pipeline.resources().streams().get(HOP), hopEnd);
            try {
                pipeline.kclWorkers("page-counts").awaitCheckpointed(hopEnd, Duration.ofSeconds(90));
            } catch (IllegalStateException stalled) {
                // reported below as lost views
            }
            long want = expected.values().stream().mapToLong(Long::longValue).sum();
            String table = pipeline.resources().tables().get("page-views-per-minute");
            Map<String, Long> counted = counts(aws, table);
            long last = -1;
            long lastChange = System.nanoTime();
            while (total(counted) < want) {
                long now2 = total(counted);
                progress.accept(now2);
                if (now2 != last) {
                    last = now2;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange
                                > Duration.ofSeconds(90).toNanos()
                        || pipeline.kclWorkers("page-counts").running().isEmpty()) {
                    break; // no progress, or no worker left: what is missing is reported as lost
                }
                LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
                counted = counts(aws, table);
            }
            // a moment more: anything counted twice would show now
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
            counted = counts(aws, table);
            progress.accept(total(counted));
            long lost = 0;
            long duplicates = 0;
            for (var e : expected.entrySet()) {
                long c = counted.getOrDefault(e.getKey(), 0L);
                lost += Math.max(0, e.getValue() - c);
                duplicates += Math.max(0, c - e.getValue());
            }
            for (var e : counted.entrySet()) {
                if (!expected.containsKey(e.getKey())) {
                    duplicates += e.getValue();
                }
            }
            return new Result(
                    clicks,
                    bots,
                    want,
                    total(counted),
                    lost,
                    duplicates,
                    pipeline.kclWorkers("page-counts").workers().size(),
                    pipeline.allMappings().stream()
                            .mapToLong(m -> m.stats().recordsInvoked())
                            .sum(),
                    pipeline.function(FIRST_STAGE).crashes(),
                    hopRecords);
        }
    }

    /** Reads the whole stream: its record count, and each shard's last sequence number into {@code last}. */
    private static long hopTail(LocalAws aws, String stream, Map<String, String> last) {
        List<StreamRecords.UserRecordAt> records = StreamRecords.readAll(aws.kinesis(), stream);
        records.forEach(r -> last.put(r.shardId(), r.sequenceNumber()));
        return records.size();
    }

    private static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Map<String, Long> counts(LocalAws aws, String table) {
        Map<String, Long> counts = new TreeMap<>();
        for (Map<String, AttributeValue> item :
                aws.dynamoDb().scanPaginator(b -> b.tableName(table)).items()) {
            if (item.containsKey("aggregate")
                    && AGGREGATE.equals(item.get("aggregate").s())) {
                counts.put(
                        item.get("key").s() + " " + item.get("windowStart").s(),
                        Long.parseLong(item.get("count").n()));
            }
        }
        return counts;
    }

    private static String page(int i) {
        return String.format("p-%06d", i % PAGES);
    }

    private static GeneratedEvent click(int i, boolean bot, Instant occurredAt) {
        ObjectNode event = MAPPER.createObjectNode();
        String session = String.format("s-%012x", 0xabc000L + i % 97);
        event.put("eventId", String.format("clk-demo-%07d", i));
        event.put("type", "clickstream.pageview.v1");
        event.put("source", "web-frontend-eu");
        event.put("occurredAt", occurredAt.toString());
        event.put("key", session);
        ObjectNode payload = event.putObject("payload");
        payload.put("sessionId", session);
        payload.put("visitorId", String.format("v-%012x", 0xdef000L + i % 97));
        payload.put("customerEmail", "visitor" + (i % 97) + "@example.com");
        payload.put("ipAddress", "198.51.100." + (i % 250));
        payload.put("userAgent", bot ? "Googlebot/2.1 (+http://www.google.com/bot.html)" : "Mozilla/5.0 Firefox/133.0");
        payload.put("pageId", page(i));
        payload.put("url", "/products/" + (i % PAGES));
        payload.put("action", "view");
        payload.put("durationMs", 1000 + i % 5000);
        return new GeneratedEvent(
                event.path("eventId").asText(), session, event.toString().getBytes(StandardCharsets.UTF_8), null);
    }
}
