package dev.sluice.local.limits;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.limits.KinesisLimits;
import java.util.Map;
import java.util.stream.Collectors;

/** What the local stack says about AWS's limits in its RESULT lines and reports. */
public final class LocalLimits {

    private LocalLimits() {}

    /**
     * The RESULT fields of a run on the stack: {@code limits=enforced throttled=N} (N Kinesis records
     * and GetRecords calls refused with ProvisionedThroughputExceededException), or {@code
     * limits=off}.
     */
    public static String resultFields(LocalAws aws) {
        return aws.kinesisLimits()
                .map(limits -> "limits=enforced throttled=" + (limits.throttledRecords() + limits.throttledReads()))
                .orElse("limits=off");
    }

    /** One line with the throttles of the run: records, reads, and the busiest seconds. */
    public static String summary(LocalAws aws) {
        return aws.kinesisLimits()
                .map(LocalLimits::summary)
                .orElse("AWS limits: off (--limits off or SLUICE_LIMITS=off)");
    }

    static String summary(KinesisLimits limits) {
        Map<Long, KinesisLimits.Throttles> perSecond = limits.throttlesPerSecond();
        String busiest = perSecond.entrySet().stream()
                .sorted(java.util.Comparator.comparingLong((Map.Entry<Long, KinesisLimits.Throttles> e) ->
                                e.getValue().total())
                        .reversed())
                .limit(3)
                .map(e -> e.getValue().total() + "@" + java.time.Instant.ofEpochSecond(e.getKey()))
                .collect(Collectors.joining(", "));
        return "AWS limits: enforced; throttled " + limits.throttledRecords() + " Kinesis records and "
                + limits.throttledReads() + " GetRecords calls"
                + (busiest.isEmpty() ? "" : " (busiest seconds: " + busiest + ")");
    }
}
