package dev.sluice.planner;

import java.util.List;

/**
 * What {@link CapacityPlanner} worked out: rates, shards and the limit that binds, consumers, storage, DynamoDB
 * writes and the monthly cost by service. Bytes are bytes; a GB in prices is 2^30 bytes.
 *
 * @param shardsByRecords peak events/s ÷ 1,000, before headroom
 * @param shardsByBytes peak bytes/s ÷ 1 MiB, before headroom
 * @param shardsByReads read side: peak bytes/s × polling consumers ÷ 2 MiB (one consumer's worth with enhanced
 *     fan-out), before headroom
 * @param enhancedFanOut more than 2 consumers: each gets its own 2 MiB/s per shard, priced per consumer-shard-hour
 * @param batchingWindowSeconds Lambda MaximumBatchingWindowInSeconds implied by the latency target (≤ T/2, whole
 *     seconds, at most 300)
 * @param averageBatchFill records in an average invocation
 * @param lakeStorageBytes compressed bytes in the lake once the retention period is full
 * @param shardsByConsumer peak events/s ÷ the measured consumer ceiling per shard (0: not modelled)
 * @param consumerCeilingPerShard the measured consumer ceiling per shard, events/s (0: not modelled)
 * @param figureSources where each figure that is not a constant comes from, one line each
 * @param dynamoDbReadUnitsPerMonth read units the stage's reads take a month (measured; 0 without a bench)
 * @param lakeOnlyCosts a stage writing only the lake from the same stream, monthly (the stream left out)
 * @param firehoseCosts Firehose delivering the same records to S3, monthly (the stream left out)
 */
public record CapacityPlan(
        PlanInputs inputs,
        PriceTable prices,
        double avgEventsPerSecond,
        double peakEventsPerSecond,
        double avgBytesPerSecond,
        double peakBytesPerSecond,
        double shardsByRecords,
        double shardsByBytes,
        double shardsByReads,
        ShardLimit bindingLimit,
        int shards,
        boolean enhancedFanOut,
        int lambdaConcurrency,
        int kclWorkers,
        int batchingWindowSeconds,
        double averageBatchFill,
        double eventsPerMonth,
        double invocationsPerMonth,
        double streamStorageBytes,
        double lakeStorageBytes,
        double dynamoDbWriteUnitsPerSecondAtPeak,
        double dynamoDbWriteUnitsPerMonth,
        double s3PutsPerMonth,
        double kmsRequestsPerMonth,
        List<CostLine> costs,
        double shardsByConsumer,
        double consumerCeilingPerShard,
        List<String> figureSources,
        double dynamoDbReadUnitsPerMonth,
        List<CostLine> lakeOnlyCosts,
        List<CostLine> firehoseCosts) {

    /** The sum of every cost line. */
    public double monthlyUsd() {
        return costs.stream().mapToDouble(CostLine::usd).sum();
    }

    /** The monthly cost spread over the month's events. */
    public double usdPerMillionEvents() {
        return perMillion(monthlyUsd());
    }

    /** Monthly dollars spread over the month's events. */
    public double perMillion(double monthlyUsd) {
        return monthlyUsd / (eventsPerMonth / 1_000_000.0);
    }

    /** The lake-only stage's cost per million events. */
    public double lakeOnlyUsdPerMillionEvents() {
        return perMillion(lakeOnlyCosts.stream().mapToDouble(CostLine::usd).sum());
    }

    /** Firehose's cost per million events for the same records. */
    public double firehoseUsdPerMillionEvents() {
        return perMillion(firehoseCosts.stream().mapToDouble(CostLine::usd).sum());
    }
}
