package dev.sluice.verify.faults;

import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.GlobalFaults;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.verify.reconcile.ClickstreamDemo;
import dev.sluice.verify.reconcile.HopOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fault suite's re-key hop scenarios: {@code pipelines/clickstream.yaml} end to end, its first
 * stage ({@code mask-and-rekey}, Lambda) faulted so that it puts views into the hop
 * ({@code clicks-by-page}) twice, while the second ({@code page-counts}, KCL) counts them. Each
 * scenario passes when every human view is counted exactly once in its page's minute, the faults
 * fired, and the hop really holds copies (the duplicates happened and were absorbed).
 */
public final class HopFaultSuite {

    /** The function crashes after its writes (PutRecords into the hop landed): the batch is put again. */
    public static final String REDELIVERED = "hop-redelivered-after-put";

    /** A PutRecords into the hop lands, its response is lost: the same 500 views are put again. */
    public static final String AMBIGUOUS = "hop-put-ambiguous";

    /**
     * Some entries of PutRecords into the hop are refused (throughput exceeded, internal failure) and
     * never stored; the sink sends them again; a batch is also delivered again after its writes.
     */
    public static final String PARTIAL = "hop-partial-put";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HopFaultSuite.class);

    private final LocalAws aws;
    private final PipelineDefinition clickstream;
    private final Path root;

    public HopFaultSuite(LocalAws aws, PipelineDefinition clickstream, Path root) {
        this.aws = aws;
        this.clickstream = clickstream;
        this.root = root;
    }

    public static List<String> scenarios() {
        return List.of(REDELIVERED, AMBIGUOUS, PARTIAL);
    }

    public static String description(String scenario) {
        return switch (scenario) {
            case REDELIVERED -> "mask-and-rekey dies after its PutRecords landed; the batch is put again";
            case AMBIGUOUS -> "a PutRecords into the hop lands, its response is lost; put again";
            case PARTIAL ->
                "PutRecords into the hop partly refused (throughput, internal failure), failed entries sent"
                        + " again; a batch also delivered again";
            default -> throw new IllegalArgumentException("no hop scenario '" + scenario + "'");
        };
    }

    /** Whether the KCL app the second stage needs is built. */
    public boolean available() {
        return dev.sluice.local.kcl.LocalKclWorkers.built(root.resolve(dev.sluice.local.kcl.LocalKclWorkers.APP_JAR));
    }

    /** Runs one scenario with {@code clicks} page views (a tenth of them from bots) and reconciles it. */
    public FaultSuite.Row run(String scenario, int clicks) {
        long started = System.nanoTime();
        description(scenario);
        ResourceNames names = ResourceNames.random();
        FaultInjector injector = new FaultInjector();
        Set<Integer> crashes = switch (scenario) {
            case REDELIVERED -> Set.of(2, 3);
            case PARTIAL -> Set.of(3);
            default -> Set.of();
        };
        AtomicReference<String> hop = new AtomicReference<>();
        List<String> problems = new ArrayList<>();
        ClickstreamDemo.Result result = null;
        try (GlobalFaults.Installation installed = injector.install()) {
            result = ClickstreamDemo.run(aws, clickstream, root, clicks, 1, n -> {}, names, pipeline -> {
                hop.set(pipeline.resources().streams().get(ClickstreamDemo.HOP));
                if (scenario.equals(AMBIGUOUS)) {
                    injector.on("PutRecords", hop.get(), 1, Fault.RESPONSE_LOST);
                }
                if (scenario.equals(PARTIAL)) {
                    // the first request loses every third entry, the sink's re-send of them every second,
                    // a later request every fourth
                    injector.failEntries(hop.get(), 1, 3)
                            .failEntries(hop.get(), 2, 2)
                            .failEntries(hop.get(), 4, 4);
                }
                pipeline.function(ClickstreamDemo.FIRST_STAGE).crashAfterWrites(crashes);
            });
        } catch (RuntimeException e) {
            LOG.error("scenario {} failed to run", scenario, e);
            problems.add("did not complete: " + e.getMessage());
        }
        int planned = injector.planned().size() + crashes.size();
        int fired = injector.fired().size() + (result == null ? 0 : result.crashes());
        if (result != null) {
            if (!result.reconciled()) {
                problems.add("not reconciled: " + result.expected() + " human views, " + result.counted()
                        + " counted: lost " + result.lost() + ", counted twice " + result.duplicates());
            }
            if (result.hopRecords() <= result.expected()) {
                problems.add("the hop holds " + result.hopRecords() + " records for " + result.expected()
                        + " views: the faults put nothing twice");
            }
        }
        long orderViolations = 0;
        if (result != null && hop.get() != null) {
            HopOrder.Result order = new HopOrder(aws.kinesis()).check(hop.get());
            orderViolations = order.violations();
            if (order.violations() > 0) {
                // the aggregating hop puts one aggregate per shard at a time, retried before the next:
                // per-key order holds even when PutRecords partly fails (docs/exactly-once.md §7)
                problems.add(order.violations() + " views out of per-key origin order in " + ClickstreamDemo.HOP
                        + ", e.g. " + order.examples());
            }
        }
        if (scenario.equals(PARTIAL) && injector.failedEntries() == 0) {
            problems.add("no PutRecords entry was refused");
        }
        if (fired < planned) {
            problems.add("only " + fired + " of " + planned + " planned faults fired");
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        String described = description(scenario);
        return new FaultSuite.Row(
                scenario,
                described,
                clicks,
                result == null ? 0 : result.deliveries(),
                result == null ? 0 : result.counted(),
                result == null ? 0 : Math.max(0, result.hopRecords() - result.expected()),
                0,
                result == null ? 0 : result.lost(),
                result == null ? 0 : result.duplicates(),
                orderViolations,
                planned,
                fired,
                true,
                seconds,
                List.copyOf(problems));
    }
}
