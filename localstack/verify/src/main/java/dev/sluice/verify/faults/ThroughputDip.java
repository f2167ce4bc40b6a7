package dev.sluice.verify.faults;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The throughput dip of a scale change under load, from the workers' metrics (one EMF document per
 * batch: {@code Records}, {@code FailedBatches}, {@code _aws.Timestamp}): the records the workers
 * processed per second (batches that failed are delivered again, so they are not counted) in each
 * window after the change, against their steady rate before it. Only windows that end before the
 * producer stopped count: a stream that ran dry is not a dip.
 *
 * @param beforePerSecond records processed per second between {@code steadyFrom} and the change
 * @param beforeLowestPerSecond the lowest window before the change (the noise of the steady rate)
 * @param lowestPerSecond the lowest window after the change, while the producer ran
 * @param windows windows after the change that counted
 * @param percent {@code 100 × (1 − lowest / before)}, 0 when it never dropped below the rate
 * @param afterPerSecond each whole window's rate after the change, in order (the first starts at the
 *     change)
 */
public record ThroughputDip(
        double beforePerSecond,
        double beforeLowestPerSecond,
        double lowestPerSecond,
        int windows,
        double percent,
        List<Double> afterPerSecond) {

    public ThroughputDip {
        afterPerSecond = List.copyOf(afterPerSecond);
    }

    /** Windows after the change in which the workers processed nothing while the producer ran. */
    public long stoppedWindows() {
        return afterPerSecond.stream().filter(rate -> rate == 0).count();
    }

    /** The windows' rates after the change, one decimal each: {@code 18.4 9.0 21.2 …}. */
    public String afterWindows() {
        return String.join(
                " ",
                afterPerSecond.stream()
                        .map(r -> String.format(java.util.Locale.ROOT, "%.1f", r))
                        .toList());
    }

    /**
     * The window the rate is measured over: several of each shard's batches (polled 250 ms apart
     * locally, but a batch takes 1–2 s on a loaded 2-core machine, so that 2-s windows are often
     * empty without any change).
     */
    public static final Duration WINDOW = Duration.ofSeconds(5);

    /**
     * The dip of the change at {@code change}, the steady rate measured from {@code steadyFrom};
     * empty when nothing was processed before the change or no whole window fits between the change
     * and {@code producerStopped}.
     */
    public static Optional<ThroughputDip> measure(
            List<JsonNode> metrics, Instant steadyFrom, Instant change, Instant producerStopped, Duration window) {
        long from = steadyFrom.toEpochMilli();
        long at = change.toEpochMilli();
        long step = window.toMillis();
        if (at - from < step) {
            return Optional.empty();
        }
        double before = records(metrics, from, at) * 1000.0 / (at - from);
        if (before <= 0) {
            return Optional.empty();
        }
        double beforeLowest = lowest(metrics, at - step * ((at - from) / step), at, step);
        double lowest = lowest(metrics, at, producerStopped.toEpochMilli(), step);
        if (Double.isNaN(lowest)) {
            return Optional.empty();
        }
        List<Double> after = rates(metrics, at, producerStopped.toEpochMilli(), step);
        return Optional.of(new ThroughputDip(
                before, beforeLowest, lowest, after.size(), Math.max(0, 100.0 * (1 - lowest / before)), after));
    }

    /** The lowest rate of the whole windows from {@code from} up to {@code to}; NaN if none fits. */
    private static double lowest(List<JsonNode> metrics, long from, long to, long step) {
        return rates(metrics, from, to, step).stream()
                .mapToDouble(Double::doubleValue)
                .min()
                .orElse(Double.NaN);
    }

    /** The rate of each whole window from {@code from} up to {@code to}, in order. */
    private static List<Double> rates(List<JsonNode> metrics, long from, long to, long step) {
        List<Double> rates = new java.util.ArrayList<>();
        for (long start = from; start + step <= to; start += step) {
            rates.add(records(metrics, start, start + step) * 1000.0 / step);
        }
        return rates;
    }

    private static long records(List<JsonNode> metrics, long from, long to) {
        return metrics.stream()
                .filter(m -> m.path("FailedBatches").asLong() == 0)
                .filter(m -> {
                    long ts = m.path("_aws").path("Timestamp").asLong();
                    return ts >= from && ts < to;
                })
                .mapToLong(m -> m.path("Records").asLong())
                .sum();
    }
}
