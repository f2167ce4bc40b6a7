package dev.sluice.planner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The plan as a readable table, ending with one machine-readable {@code RESULT} line. */
public final class PlanReport {

    private PlanReport() {}

    public static List<String> lines(CapacityPlan p) {
        PlanInputs in = p.inputs();
        PriceTable prices = p.prices();
        List<String> out = new ArrayList<>();
        long unverified = prices.prices().values().stream()
                .filter(price -> !price.verified())
                .count();
        out.add(f(
                "Sluice capacity plan — prices %s %s as of %s (%s; %d of %d not checked on the AWS page itself)",
                prices.region(),
                prices.currency(),
                prices.asOf(),
                prices.origin(),
                unverified,
                prices.prices().size()));
        out.add("");
        out.add("Load");
        row(out, "users", f("%,d", in.users()));
        row(
                out,
                "events per user per day",
                f("%s average, %s at the peak rate", num(in.eventsPerDay()), num(in.peakEventsPerDay())));
        row(
                out,
                "events/s",
                f(
                        "%,.1f average (%,.0f/min), %,.1f peak (%,.0f/min)",
                        p.avgEventsPerSecond(),
                        p.avgEventsPerSecond() * 60,
                        p.peakEventsPerSecond(),
                        p.peakEventsPerSecond() * 60));
        row(
                out,
                "bytes/s",
                f(
                        "%s average, %s peak (%,d-byte records)",
                        bytes(p.avgBytesPerSecond()), bytes(p.peakBytesPerSecond()), in.recordBytes()));
        row(out, "events a month", f("%,.0f (%s h)", p.eventsPerMonth(), num(prices.hoursPerMonth())));
        out.add("");
        out.add("Figures used");
        for (String source : p.figureSources()) {
            row(out, "", source);
        }
        out.add("");
        out.add("Kinesis");
        row(
                out,
                "shards by limit",
                f(
                        "records %.2f, bytes %.2f, reads %.2f (%s)",
                        p.shardsByRecords(),
                        p.shardsByBytes(),
                        p.shardsByReads(),
                        p.enhancedFanOut()
                                ? in.fanOutConsumers() + " consumers: enhanced fan-out, 2 MiB/s each"
                                : in.fanOutConsumers() + " polling consumer" + (in.fanOutConsumers() == 1 ? "" : "s")
                                        + " sharing 2 MiB/s"));
        if (p.consumerCeilingPerShard() > 0) {
            row(
                    out,
                    "shards by consumer",
                    f(
                            "%.2f  (peak %,.1f events/s ÷ %,.0f events/s a shard, measured)",
                            p.shardsByConsumer(), p.peakEventsPerSecond(), p.consumerCeilingPerShard()));
        }
        row(
                out,
                "binding limit",
                p.bindingLimit().name().toLowerCase(Locale.ROOT) + ": "
                        + p.bindingLimit().description());
        row(out, "shards", f("%d  (ceil(%.2f × %s headroom))", p.shards(), max(p), num(1 + in.headroom())));
        row(out, "stream storage", f("%s (%d h retention)", bytes(p.streamStorageBytes()), in.streamRetentionHours()));
        out.add("");
        out.add("Consumers");
        row(
                out,
                "Lambda concurrency",
                f("%d  (%d shards × parallelization %d)", p.lambdaConcurrency(), p.shards(), in.parallelization()));
        row(
                out,
                "KCL workers",
                f(
                        "%d  (ceil(%d shards ÷ %d leases), at least 2 for failover)",
                        p.kclWorkers(), p.shards(), in.leasesPerWorker()));
        row(
                out,
                "batching window",
                f(
                        "%d s  (≤ half the %,d ms latency target; %s records a batch on average, batch size %d)",
                        p.batchingWindowSeconds(),
                        in.targetLatencyMs(),
                        f("%.1f", p.averageBatchFill()),
                        in.batchSize()));
        row(out, "invocations a month", f("%,.0f", p.invocationsPerMonth()));
        out.add("");
        out.add("Storage and writes");
        row(
                out,
                "lake storage",
                f(
                        "%s compressed (%d days × gzip ratio %s), once the retention period is full",
                        bytes(p.lakeStorageBytes()), in.retentionDays(), num(in.compression())));
        row(
                out,
                "DynamoDB writes",
                f(
                        "%,.1f write units/s at peak, %,.0f a month (%s capacity)",
                        p.dynamoDbWriteUnitsPerSecondAtPeak(),
                        p.dynamoDbWriteUnitsPerMonth(),
                        in.dynamoDbCapacity().option()));
        if (p.dynamoDbReadUnitsPerMonth() > 0) {
            row(out, "DynamoDB reads", f("%,.0f read units a month (measured)", p.dynamoDbReadUnitsPerMonth()));
        }
        out.add("");
        out.add(f(
                "Monthly cost (%s, list prices, DynamoDB %s, no free tier)",
                prices.currency(), in.dynamoDbCapacity().option()));
        costTable(out, p, p.costs());
        out.add(f("  per million events: %s %.4f", prices.currency(), p.usdPerMillionEvents()));
        out.add("  CloudWatch (logs, metrics, alarms), data transfer and DynamoDB storage are left out.");
        out.add("");
        out.add("Lake only: the same records into S3, the source stream left out of both");
        out.add("  Sluice, a stage with only a lake sink (batches of up to 10,000 records, commit ledger)");
        costTable(out, p, p.lakeOnlyCosts());
        out.add("  Amazon Data Firehose to S3 (5 MiB buffers, no validation, masking or exactly-once ledger)");
        costTable(out, p, p.firehoseCosts());
        out.add(f(
                "  per million events: Sluice lake-only %s %.4f, Firehose %s %.4f",
                prices.currency(),
                p.lakeOnlyUsdPerMillionEvents(),
                prices.currency(),
                p.firehoseUsdPerMillionEvents()));
        out.add(f(
                "RESULT avg_events_per_s=%.1f peak_events_per_s=%.1f shards=%d lambda_concurrency=%d kcl_workers=%d"
                        + " monthly_usd=%.2f usd_per_million=%.4f lake_only_usd_per_million=%.4f"
                        + " firehose_usd_per_million=%.4f dynamodb_capacity=%s",
                p.avgEventsPerSecond(),
                p.peakEventsPerSecond(),
                p.shards(),
                p.lambdaConcurrency(),
                p.kclWorkers(),
                p.monthlyUsd(),
                p.usdPerMillionEvents(),
                p.lakeOnlyUsdPerMillionEvents(),
                p.firehoseUsdPerMillionEvents(),
                in.dynamoDbCapacity().option()));
        return out;
    }

    /** Each line's quantity, monthly dollars and dollars per million events, with its basis. */
    private static void costTable(List<String> out, CapacityPlan p, List<CostLine> lines) {
        out.add(f(
                "  %-9s %-24s %18s %-20s %12s %10s  %s",
                "service", "item", "quantity", "unit", "USD/month", "USD/M ev", "basis"));
        double total = 0;
        for (CostLine line : lines) {
            total += line.usd();
            out.add(f(
                    "  %-9s %-24s %,18.0f %-20s %,12.2f %10.4f  %s",
                    line.service(),
                    line.item(),
                    line.quantity(),
                    line.unit(),
                    line.usd(),
                    p.perMillion(line.usd()),
                    line.note()));
        }
        out.add(f("  %-9s %-24s %18s %-20s %,12.2f %10.4f", "total", "", "", "", total, p.perMillion(total)));
    }

    private static double max(CapacityPlan p) {
        return Math.max(
                Math.max(p.shardsByRecords(), p.shardsByConsumer()), Math.max(p.shardsByBytes(), p.shardsByReads()));
    }

    private static void row(List<String> out, String name, String value) {
        out.add(f("  %-24s %s", name, value));
    }

    private static String num(double value) {
        return value == Math.rint(value) ? f("%,.0f", value) : PlanInputs.plain(value);
    }

    static String bytes(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int unit = 0;
        double value = bytes;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return f(unit == 0 ? "%.0f %s" : "%,.1f %s", value, units[unit]);
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
