package dev.sluice.load;

import dev.sluice.planner.CostModel;
import dev.sluice.verify.reconcile.Reconciler;
import dev.sluice.verify.reconcile.Reconciliation;
import java.util.List;

/**
 * Everything a load run measured (report.json's {@code data}).
 *
 * @param pipeline the pipeline
 * @param stage the stage fed by the produced stream, whose sinks latency is measured to
 * @param target {@code local} or {@code aws}
 * @param targetRate events per second asked for
 * @param produceSeconds how long the producer ran
 * @param events events produced and acknowledged by Kinesis
 * @param producedPerSecond events ÷ produceSeconds
 * @param endToEndSeconds from the first send to the last sink write (or to the last ack without a
 *     stage to watch)
 * @param eventsPerSecond events ÷ endToEndSeconds: what the pipeline sustained
 * @param recordBytes average produced record size
 * @param latency latency summary (null when not measured)
 * @param seconds per-second throughput, latency and lag
 * @param invocations function invocations (batches reported)
 * @param deadLetteredReported records the function reported dead lettered (redeliveries included)
 * @param absorbedDuplicates duplicates the sinks reported absorbing
 * @param reconciliation the ledger against the targets (null when not reconciled)
 * @param requests SDK requests counted during the run, by role, service, operation and resource
 * @param costs cost per million events: Sluice as measured and the baselines
 * @param day whether the rate followed the daily curve, one day compressed into the run
 * @param stages every stage measured, the one fed by the produced stream first, then the KCL
 *     stages further down (empty on AWS)
 * @param limits AWS's limits on the local stack during the run: what the Kinesis gate throttled
 * @param capacity per stage measured: duration per batch, per-shard consumer ceiling, real time or
 *     not ({@link StageCapacity}; empty on AWS)
 * @param awsLatency whether AWS's latencies were modelled on the local stack ({@code --aws-latency})
 * @param delayedCalls with {@code awsLatency}: the calls the model delayed, by service and operation,
 *     from every process (the KCL worker JVMs' too)
 * @param downstream the aggregates of the stages behind the first one (behind a re-key hop), each
 *     reconciled against the events the first stage kept (empty when there are none, or on AWS)
 * @param cpu CPU time per process of the local stack during the run (null on AWS)
 * @param modelled the pipeline's stages as the newest handler bench modelled them in AWS ({@code
 *     ./sluice bench handler}), null when no bench of the pipeline is in the reports folder; its cost
 *     is the {@code Sluice (modelled in AWS)} entry of {@code costs}
 */
public record LoadResult(
        String pipeline,
        String stage,
        String target,
        double targetRate,
        double produceSeconds,
        long events,
        double producedPerSecond,
        double endToEndSeconds,
        double eventsPerSecond,
        double recordBytes,
        Latency latency,
        List<LatencyAccounting.Second> seconds,
        long invocations,
        long deadLetteredReported,
        long absorbedDuplicates,
        Reconciliation reconciliation,
        boolean reconciled,
        List<Request> requests,
        List<CostModel.Breakdown> costs,
        boolean day,
        List<StageFigures> stages,
        Limits limits,
        List<StageCapacity> capacity,
        boolean awsLatency,
        java.util.Map<String, Long> delayedCalls,
        java.util.Map<String, Reconciler.AggregateReconciliation> downstream,
        ProcessCpu.Usage cpu,
        dev.sluice.planner.ModelledStages modelled) {

    public LoadResult {
        downstream = java.util.Map.copyOf(downstream);
    }

    /** A run without capacity figures, the AWS latency model, downstream aggregates or CPU figures. */
    public LoadResult(
            String pipeline,
            String stage,
            String target,
            double targetRate,
            double produceSeconds,
            long events,
            double producedPerSecond,
            double endToEndSeconds,
            double eventsPerSecond,
            double recordBytes,
            Latency latency,
            List<LatencyAccounting.Second> seconds,
            long invocations,
            long deadLetteredReported,
            long absorbedDuplicates,
            Reconciliation reconciliation,
            boolean reconciled,
            List<Request> requests,
            List<CostModel.Breakdown> costs,
            boolean day,
            List<StageFigures> stages,
            Limits limits) {
        this(
                pipeline,
                stage,
                target,
                targetRate,
                produceSeconds,
                events,
                producedPerSecond,
                endToEndSeconds,
                eventsPerSecond,
                recordBytes,
                latency,
                seconds,
                invocations,
                deadLetteredReported,
                absorbedDuplicates,
                reconciliation,
                reconciled,
                requests,
                costs,
                day,
                stages,
                limits,
                List.of(),
                false,
                java.util.Map.of(),
                java.util.Map.of(),
                null,
                null);
    }

    /** Views lost over the whole pipeline: the first stage's and every downstream aggregate's. */
    public long lost() {
        return (reconciliation == null ? 0 : reconciliation.lost())
                + downstream.values().stream()
                        .mapToLong(Reconciler.AggregateReconciliation::lost)
                        .sum();
    }

    /** Duplicate effects over the whole pipeline. */
    public long duplicates() {
        return (reconciliation == null ? 0 : reconciliation.duplicates())
                + downstream.values().stream()
                        .mapToLong(Reconciler.AggregateReconciliation::duplicates)
                        .sum();
    }

    /**
     * What AWS's Kinesis limits did to a run ({@code docs/local-limits.md}).
     *
     * @param mode {@code enforced} (the local gate meters every shard), {@code off} ({@code --limits
     *     off}) or {@code aws} (a deployed stack: AWS enforces them, the harness does not count them)
     * @param throttledRecords PutRecord and PutRecords entries refused with {@code
     *     ProvisionedThroughputExceededException}
     * @param throttledReads GetRecords calls refused the same way
     * @param seconds throttles per second since the start, every second of the run (empty unless
     *     enforced)
     */
    public record Limits(String mode, long throttledRecords, long throttledReads, List<ThrottleSecond> seconds) {
        public Limits {
            seconds = List.copyOf(seconds);
        }

        public boolean enforced() {
            return mode.equals("enforced");
        }
    }

    /** The throttles of one second of the run (seconds since its start). */
    public record ThrottleSecond(int second, long records, long reads) {}

    /**
     * Latency from occurredAt to the sink write, over every matched record, in milliseconds.
     *
     * @param matched records with a latency
     * @param unmatched records no completed batch reported
     */
    public record Latency(
            long matched, long unmatched, double mean, long p50, long p95, long p99, long p999, long max) {

        /** The latency of an accounting's matched records, or null when none matched. */
        static Latency of(LatencyAccounting.Result accounting) {
            if (accounting.matched() == 0) {
                return null;
            }
            org.HdrHistogram.Histogram h = accounting.histogram();
            return new Latency(
                    accounting.matched(),
                    accounting.unmatched(),
                    h.getMean(),
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(95),
                    h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9),
                    h.getMaxValue());
        }
    }

    /**
     * Requests of one operation on one resource, and who made them.
     *
     * @param role {@code producer}, {@code function} or {@code event-source mapping}
     * @param perThousandEvents requests per 1,000 produced events
     * @param timing how long the attempts took as their callers saw them (null when not timed)
     */
    public record Request(
            String role,
            String service,
            String operation,
            String resource,
            long requests,
            long entries,
            double perThousandEvents,
            RequestCounts.Timing timing) {
        /** Without timings. */
        public Request(
                String role,
                String service,
                String operation,
                String resource,
                long requests,
                long entries,
                double perThousandEvents) {
            this(role, service, operation, resource, requests, entries, perThousandEvents, null);
        }
    }
}
