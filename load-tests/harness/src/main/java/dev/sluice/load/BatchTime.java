package dev.sluice.load;

import dev.sluice.planner.AwsLatencyModel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Where a Lambda stage's batch time goes, per AWS operation its function calls: calls per batch, how
 * long each took as the function saw it (transmission to response headers), the time they add up to
 * per batch, and how many were in flight at once on average (that sum ÷ the mean batch duration).
 * With the AWS latency model the modelled figure of the operation stands beside the observed one,
 * so that what the local stack adds (its gate, its emulator, the machine's CPU) can be read off.
 *
 * @param stage the stage
 * @param operation service and operation ({@code DynamoDb PutItem})
 * @param resource the table, bucket or queue
 * @param callsPerBatch attempts per batch
 * @param observedP50Millis an attempt's median as the function saw it
 * @param observedP99Millis its 99th percentile
 * @param millisPerBatch the attempts' durations added up, per batch
 * @param inFlight millisPerBatch ÷ the stage's mean batch duration: 1 when the calls ran one after
 *     another through the whole batch, more when they overlapped
 * @param modelP50Millis the model's median for the operation (NaN without the model or figure)
 * @param modelP99Millis the model's 99th percentile (NaN without the model or figure)
 */
public record BatchTime(
        String stage,
        String operation,
        String resource,
        double callsPerBatch,
        double observedP50Millis,
        double observedP99Millis,
        double millisPerBatch,
        double inFlight,
        double modelP50Millis,
        double modelP99Millis) {

    /** The breakdown of the batches of the stage the producer feeds (a Lambda stage), from a run's result. */
    public static List<BatchTime> of(LoadResult r) {
        if (r.capacity() == null || r.requests() == null) {
            return List.of();
        }
        StageCapacity first = r.capacity().stream()
                .filter(c -> c.stage().equals(r.stage()))
                .findFirst()
                .orElse(null);
        return of(first, r.requests(), r.awsLatency() ? new AwsLatencyModel(0) : null);
    }

    /**
     * The breakdown of a Lambda stage's batches from the function's timed requests, busiest first;
     * empty for a KCL stage or a run without batches.
     *
     * @param model the run's latency model, or null when the run had none
     */
    public static List<BatchTime> of(StageCapacity stage, List<LoadResult.Request> requests, AwsLatencyModel model) {
        List<BatchTime> rows = new ArrayList<>();
        if (stage == null || !stage.consumer().equals("lambda") || stage.batches() == 0) {
            return rows;
        }
        for (LoadResult.Request q : requests) {
            if (!q.role().equals("function") || q.timing() == null) {
                continue;
            }
            AwsLatencyModel.Figure figure = model == null ? null : model.figure(q.service(), q.operation());
            double perBatch = q.timing().totalSeconds() * 1000 / stage.batches();
            rows.add(new BatchTime(
                    stage.stage(),
                    q.service() + " " + q.operation(),
                    q.resource(),
                    q.requests() / (double) stage.batches(),
                    q.timing().p50Millis(),
                    q.timing().p99Millis(),
                    perBatch,
                    stage.durationMeanMs() > 0 ? perBatch / stage.durationMeanMs() : Double.NaN,
                    figure == null ? Double.NaN : figure.p50Millis(),
                    figure == null ? Double.NaN : figure.p99Millis()));
        }
        rows.sort(Comparator.comparingDouble(BatchTime::millisPerBatch).reversed());
        return rows;
    }

    /** One line of the command's summary. */
    public String line() {
        return String.format(
                Locale.ROOT,
                "%s%s: %.1f a batch, %s ms p50 / %s p99 each%s; %,.0f ms a batch added up, %.1f in flight",
                operation,
                resource.isEmpty() ? "" : " on " + resource,
                callsPerBatch,
                millis(observedP50Millis),
                millis(observedP99Millis),
                Double.isNaN(modelP50Millis)
                        ? ""
                        : " (AWS model " + millis(modelP50Millis) + " / " + millis(modelP99Millis) + ")",
                millisPerBatch,
                inFlight);
    }

    static String millis(double ms) {
        return ms >= 10 ? String.format(Locale.ROOT, "%,.0f", ms) : String.format(Locale.ROOT, "%.1f", ms);
    }
}
