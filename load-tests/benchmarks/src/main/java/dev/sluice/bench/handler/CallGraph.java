package dev.sluice.bench.handler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The AWS calls of one batch as a graph a latency model can use: the calls, each with its thread
 * and times, cut into <em>phases</em> that run one after the other (a phase starts only when every
 * call of the previous one has ended: a join) and, inside a phase, <em>lanes</em>: the calls one
 * thread made in order. Calls in one lane run one after the other; lanes of a phase run concurrently.
 * Phases are found from the times: maximal runs of overlapping calls, a run that is only one thread
 * going on with its own calls joined to the phase before it. Recorded while the stub delays every
 * answer (so that what can overlap does).
 *
 * @param handler {@code sluice} or {@code hand-written}
 * @param records records in the batch
 * @param accepted of which the chain accepted
 * @param deadLettered of which the chain dead-lettered
 * @param latencyMillis the delay the stub added to every answer while recording
 * @param calls every call, in start order, times relative to the first call's start
 * @param phases the phases, in order
 */
public record CallGraph(
        String handler,
        int records,
        int accepted,
        int deadLettered,
        long latencyMillis,
        List<Call> calls,
        List<Phase> phases) {

    /** One call; times in microseconds from the batch's first call. */
    public record Call(
            int index,
            String service,
            String operation,
            String resource,
            String thread,
            long startMicros,
            long endMicros,
            String outcome) {

        String name() {
            return service + " " + operation;
        }
    }

    /**
     * A run of overlapping calls.
     *
     * @param maxConcurrent most calls in flight at once
     * @param calls how many calls of each {@code SERVICE Operation}
     * @param lanes each thread's calls in order (indexes into {@link CallGraph#calls})
     */
    public record Phase(int index, int maxConcurrent, Map<String, Integer> calls, List<Lane> lanes) {}

    /** One thread's calls in a phase, in order. */
    public record Lane(String thread, List<Integer> calls) {}

    /** The graph of recorded calls. */
    public static CallGraph of(
            String handler,
            int records,
            int accepted,
            int deadLettered,
            long latencyMillis,
            List<CallRecorder.Call> recorded) {
        List<CallRecorder.Call> sorted = new ArrayList<>(recorded);
        sorted.sort(Comparator.comparingLong(CallRecorder.Call::startNanos));
        long origin = sorted.isEmpty() ? 0 : sorted.get(0).startNanos();
        List<Call> calls = new ArrayList<>();
        for (CallRecorder.Call c : sorted) {
            calls.add(new Call(
                    calls.size(),
                    c.service(),
                    c.operation(),
                    c.resource(),
                    c.thread() + "#" + c.threadId(),
                    (c.startNanos() - origin) / 1_000,
                    (c.endNanos() - origin) / 1_000,
                    c.outcome()));
        }
        // runs of overlapping calls...
        List<List<Call>> runs = new ArrayList<>();
        int i = 0;
        while (i < calls.size()) {
            int start = i;
            long end = calls.get(i).endMicros();
            i++;
            while (i < calls.size() && calls.get(i).startMicros() < end) {
                end = Math.max(end, calls.get(i).endMicros());
                i++;
            }
            runs.add(new ArrayList<>(calls.subList(start, i)));
        }
        // ...where a run that is one thread going on with its own calls belongs to the phase before it
        // (a lane longer than its neighbours, e.g. the lake's commit after the aggregates are done; or
        // a handler that makes every call on one thread): a new phase starts only where new threads
        // start or where the thread going on had no call in the phase before (a join, then the next step)
        List<List<Call>> merged = new ArrayList<>();
        for (List<Call> run : runs) {
            List<Call> previous = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            String only = run.stream().map(Call::thread).distinct().count() == 1
                    ? run.get(0).thread()
                    : null;
            if (previous != null
                    && only != null
                    && previous.stream().anyMatch(c -> c.thread().equals(only))) {
                previous.addAll(run);
            } else {
                merged.add(run);
            }
        }
        List<Phase> phases = new ArrayList<>();
        for (List<Call> phase : merged) {
            phases.add(phase(phases.size() + 1, phase));
        }
        return new CallGraph(handler, records, accepted, deadLettered, latencyMillis, calls, phases);
    }

    private static Phase phase(int index, List<Call> calls) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, List<Integer>> lanes = new LinkedHashMap<>();
        for (Call call : calls) {
            counts.merge(call.name(), 1, Integer::sum);
            lanes.computeIfAbsent(call.thread(), t -> new ArrayList<>()).add(call.index());
        }
        // the most calls in flight at once: a sweep over starts and ends
        List<long[]> edges = new ArrayList<>();
        for (Call call : calls) {
            edges.add(new long[] {call.startMicros(), 1});
            edges.add(new long[] {call.endMicros(), -1});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int inFlight = 0;
        int max = 0;
        for (long[] edge : edges) {
            inFlight += (int) edge[1];
            max = Math.max(max, inFlight);
        }
        List<Lane> laneList = new ArrayList<>();
        lanes.forEach((thread, indexes) -> laneList.add(new Lane(thread, List.copyOf(indexes))));
        return new Phase(index, max, counts, laneList);
    }

    /** Calls per {@code SERVICE Operation} over the whole batch. */
    public Map<String, Integer> totals() {
        Map<String, Integer> totals = new TreeMap<>();
        calls.forEach(c -> totals.merge(c.name(), 1, Integer::sum));
        return totals;
    }

    /**
     * The graph in a few lines: per phase its calls, how many threads and how many at once, and its
     * lanes grouped by the sequence of calls they make (e.g. {@code 3 lanes: GetItem → UpdateItem}).
     */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (Phase phase : phases) {
            StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%d. ", phase.index()));
            List<String> parts = new ArrayList<>();
            phase.calls().forEach((name, n) -> parts.add(name + " ×" + n));
            head.append(String.join(", ", parts));
            head.append(String.format(
                    Locale.ROOT,
                    "  (%d thread%s, ≤ %d at once)",
                    phase.lanes().size(),
                    phase.lanes().size() == 1 ? "" : "s",
                    phase.maxConcurrent()));
            lines.add(head.toString());
            if (phase.lanes().size() > 1 || phase.lanes().get(0).calls().size() > 1) {
                Map<String, Integer> shapes = new LinkedHashMap<>();
                for (Lane lane : phase.lanes()) {
                    shapes.merge(shape(lane), 1, Integer::sum);
                }
                shapes.forEach((shape, n) ->
                        lines.add(String.format(Locale.ROOT, "     %s %s: %s", n, n == 1 ? "lane " : "lanes", shape)));
            }
        }
        return lines;
    }

    /**
     * A lane's calls as {@code op [resource] → …}, a repeated call or sequence of up to four calls
     * compressed to {@code ×n} ({@code (PutItem [a] → PutItem [b]) ×99}).
     */
    private String shape(Lane lane) {
        List<String> steps = new ArrayList<>();
        for (int index : lane.calls()) {
            Call call = calls.get(index);
            steps.add(call.service() + " " + call.operation() + " [" + call.resource() + "]"
                    + (call.outcome().equals("ok") ? "" : " (" + call.outcome() + ")"));
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < steps.size()) {
            int bestPeriod = 1;
            int bestCount = 1;
            for (int period = 1; period <= 4 && i + period <= steps.size(); period++) {
                int count = 1;
                while (i + (count + 1) * period <= steps.size()
                        && steps.subList(i + count * period, i + (count + 1) * period)
                                .equals(steps.subList(i, i + period))) {
                    count++;
                }
                if (count > 1 && count * period > bestCount * bestPeriod) {
                    bestPeriod = period;
                    bestCount = count;
                }
            }
            String unit = String.join(" → ", steps.subList(i, i + bestPeriod));
            out.add(bestCount == 1 ? unit : (bestPeriod == 1 ? unit : "(" + unit + ")") + " ×" + bestCount);
            i += bestPeriod * bestCount;
        }
        return String.join(" → ", out);
    }
}
