package dev.sluice.bench;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.stage.RecordParser;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Thread CPU time per event of {@link StageChainBenchmark#chain}, {@link StageChainBenchmark#naive} and {@link
 * StageChainBenchmark#baseline}, measured alternately in one JVM: on a shared, loaded machine CPU
 * time moves less with the load than JMH's wall-clock rates. Not a JMH run: the states are set up
 * as JMH sets them up and the methods are called directly.
 *
 * <p>{@code java -cp sluice-benchmarks.jar dev.sluice.bench.CpuProbe [warm-up calls] [rounds]
 * [calls per round]}; ends with {@code RESULT chain_cpu_ns=... baseline_cpu_ns=... ratio=...
 * tree_cpu_ns=... naive_cpu_ns=... ratio_naive=...} (medians per event; ratio = baseline / chain,
 * ratio_naive = naive / chain, so both read as {@code ./sluice bench core}'s; {@code tree} is the chain's first
 * step alone, its record parser reading each record of the batch into a tree that locates the
 * strings the payments chain edits).
 */
public final class CpuProbe {

    private CpuProbe() {}

    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        int calls = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
        StageChainBenchmark bench = new StageChainBenchmark();
        StageChainBenchmark.Events events = new StageChainBenchmark.Events();
        events.generate();
        StageChainBenchmark.Chain chain = new StageChainBenchmark.Chain();
        chain.pipeline = Workload.DEFAULT_PIPELINE;
        chain.stage = "";
        chain.compile();
        StageChainBenchmark.Naive naive = new StageChainBenchmark.Naive();
        naive.pipeline = chain.pipeline;
        naive.stage = chain.stage;
        naive.compile();
        Blackhole bh = new Blackhole(
                "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        RecordParser parser = new RecordParser(events.mapper, Set.of("ingestedAt", "email", "cardNumber"));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < warmup; i++) {
            bench.chain(events, chain, bh);
            bench.baseline(events, bh);
            parse(events, parser, bh);
            bench.naive(events, naive, bh);
        }
        double[] naiveNs = new double[rounds];
        double[] chainNs = new double[rounds];
        double[] baselineNs = new double[rounds];
        double[] treeNs = new double[rounds];
        long events1 = (long) calls * Workload.BATCH_SIZE;
        for (int r = 0; r < rounds; r++) {
            long t0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                bench.chain(events, chain, bh);
            }
            long t1 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                bench.baseline(events, bh);
            }
            long t2 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                parse(events, parser, bh);
            }
            long t3 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                bench.naive(events, naive, bh);
            }
            long t4 = threads.getCurrentThreadCpuTime();
            naiveNs[r] = (double) (t4 - t3) / events1;
            chainNs[r] = (double) (t1 - t0) / events1;
            baselineNs[r] = (double) (t2 - t1) / events1;
            treeNs[r] = (double) (t3 - t2) / events1;
        }
        double c = median(chainNs);
        double b = median(baselineNs);
        double n = median(naiveNs);
        System.out.printf(
                "RESULT chain_cpu_ns=%.0f baseline_cpu_ns=%.0f ratio=%.2f tree_cpu_ns=%.0f naive_cpu_ns=%.0f"
                        + " ratio_naive=%.2f%n",
                c, b, b / c, median(treeNs), n, n / c);
        bh.evaporate("Yes, I am Stephen Hawking, and know a thing or two about black holes.");
    }

    /** The chain's record parser over the next batch, nothing else. */
    private static void parse(StageChainBenchmark.Events events, RecordParser parser, Blackhole bh) {
        List<InboundRecord> batch = events.next();
        for (int i = 0; i < batch.size(); i++) {
            try {
                bh.consume(parser.parse(batch.get(i).data()));
            } catch (RecordParser.MalformedRecordException e) {
                bh.consume(e);
            }
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
