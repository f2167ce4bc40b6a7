package dev.sluice.cli;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.cloudwatchlogs.model.FilterLogEventsResponse;
import software.amazon.awssdk.services.cloudwatchlogs.model.FilteredLogEvent;
import software.amazon.awssdk.services.cloudwatchlogs.model.ResourceNotFoundException;

/**
 * Finds, per Lambda stage, the first REPORT line with a {@code Restore Duration} (a SnapStart
 * restore, see {@link ReportLine}) in the stage function's log group since a given instant, with
 * CloudWatch Logs {@code FilterLogEvents} (filter pattern {@value #FILTER_PATTERN}), every page of
 * the answer read (at most {@value #MAX_PAGES}) and the earliest matching event kept, since the
 * answer interleaves log streams. A REPORT line reaches CloudWatch Logs a few seconds after its
 * invocation ends, so stages still without one are asked again every {@code poll} until {@code
 * wait} has passed.
 */
final class RestoreLookup {

    /** Both phrases must be in the event: a REPORT line that carries a Restore Duration. */
    static final String FILTER_PATTERN = "\"REPORT RequestId\" \"Restore Duration\"";

    /** Pages of one search read at most (FilterLogEvents may answer empty pages while it scans). */
    static final int MAX_PAGES = 50;

    private final CloudWatchLogsClient logs;
    private final Duration wait;
    private final Duration poll;
    private final Clock clock;

    RestoreLookup(CloudWatchLogsClient logs, Duration wait, Duration poll, Clock clock) {
        this.logs = logs;
        this.wait = wait;
        this.poll = poll;
        this.clock = clock;
    }

    /**
     * The first restore of each stage since {@code since}.
     *
     * @param logGroups log group name by stage, in the order to report them
     */
    List<StageRestore> find(Map<String, String> logGroups, Instant since) {
        Instant deadline = clock.instant().plus(wait);
        Map<String, StageRestore> found = new LinkedHashMap<>();
        List<String> pending = new ArrayList<>(logGroups.keySet());
        while (true) {
            for (String stage : List.copyOf(pending)) {
                Search search = search(stage, logGroups.get(stage), since);
                found.put(stage, search.restore());
                if (search.final_()) {
                    pending.remove(stage);
                }
            }
            if (pending.isEmpty() || !clock.instant().plus(poll).isBefore(deadline)) {
                break;
            }
            try {
                Thread.sleep(poll.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<StageRestore> restores = new ArrayList<>();
        logGroups.keySet().forEach(stage -> restores.add(found.get(stage)));
        return restores;
    }

    /** One search's outcome, and whether asking again could change it. */
    private record Search(StageRestore restore, boolean final_) {}

    private Search search(String stage, String logGroup, Instant since) {
        FilteredLogEvent first = null;
        ReportLine firstReport = null;
        String unreadable = null;
        String token = null;
        int pages = 0;
        try {
            do {
                String next = token;
                FilterLogEventsResponse page = logs.filterLogEvents(b -> b.logGroupName(logGroup)
                        .startTime(since.toEpochMilli())
                        .filterPattern(FILTER_PATTERN)
                        .nextToken(next));
                pages++;
                for (FilteredLogEvent event : page.events()) {
                    if (event.message() == null
                            || !event.message().startsWith(ReportLine.PREFIX)
                            || (first != null && event.timestamp() >= first.timestamp())) {
                        continue; // a log line quoting the phrases, or not earlier than the one kept
                    }
                    try {
                        ReportLine report = ReportLine.parse(event.message());
                        if (report.restored()) {
                            first = event;
                            firstReport = report;
                        }
                    } catch (IllegalArgumentException e) {
                        unreadable = e.getMessage();
                    }
                }
                token = page.nextToken();
            } while (token != null && pages < MAX_PAGES);
        } catch (ResourceNotFoundException e) {
            return new Search(
                    StageRestore.none(stage, since, "n/a: no log group " + logGroup + " (is the stack deployed?)"),
                    true);
        } catch (SdkException e) {
            return new Search(
                    StageRestore.none(
                            stage,
                            since,
                            "n/a: cannot read " + logGroup + " (FilterLogEvents as admin: "
                                    + AwsSmokeTarget.firstLine(e.getMessage()) + ")"),
                    true);
        }
        if (first != null) {
            return new Search(
                    StageRestore.seen(
                            stage, firstReport, Instant.ofEpochMilli(first.timestamp()), first.logStreamName(), since),
                    true);
        }
        if (unreadable != null) {
            return new Search(StageRestore.none(stage, since, "n/a: " + unreadable + " (in " + logGroup + ")"), true);
        }
        String why = token != null
                ? "searched " + MAX_PAGES + " pages of " + logGroup + " without reaching the end"
                : "no REPORT line with a Restore Duration in " + logGroup + " since the deploy at " + since
                        + " (it reaches CloudWatch Logs seconds after the invocation; or the deploy did not change"
                        + " the function and its execution environments stayed warm)";
        return new Search(StageRestore.none(stage, since, "no restore seen yet: " + why), token != null);
    }
}
