package dev.sluice.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads a Flight Recorder file of a benchmark run and says where the benchmark thread's time went:
 * the hottest methods (self time), the libraries they belong to, the chain's phases (inclusive,
 * attributed to the innermost phase on the stack), the allocated types and the GC pauses. The
 * same data {@code jfr print --events jdk.ExecutionSample} shows, counted.
 */
public final class JfrSummary {

    /** Libraries by package prefix, most specific first. */
    private static final List<String[]> LIBRARIES = List.of(
            new String[] {"com.networknt.schema.", "networknt json-schema-validator"},
            new String[] {"com.fasterxml.jackson.core.", "jackson-core (tokenizer, generator)"},
            new String[] {"com.fasterxml.jackson.databind.", "jackson-databind (tree, serializers)"},
            new String[] {"java.util.regex.", "java.util.regex (schema patterns)"},
            new String[] {"java.time.", "java.time (date-time parsing)"},
            new String[] {"java.util.concurrent.", "java.util.concurrent"},
            new String[] {"java.util.", "java.util (collections, iterators)"},
            new String[] {"java.math.", "java.math (BigDecimal)"},
            new String[] {"java.lang.", "java.lang (strings, boxing, arrays)"},
            new String[] {"jdk.internal.", "jdk.internal"},
            new String[] {"dev.sluice.", "sluice"},
            new String[] {"org.openjdk.jmh.", "jmh harness"});

    private final Map<String, Integer> self = new HashMap<>();
    private final Map<String, Integer> libraries = new HashMap<>();
    private final Map<String, Integer> phases = new HashMap<>();
    private final Map<String, Long> allocations = new HashMap<>();
    private long allocated;
    private int samples;
    private int truncated;
    private Duration gcPauses = Duration.ZERO;
    private int collections;
    private java.time.Instant first;
    private java.time.Instant last;

    private JfrSummary() {}

    /**
     * Counts the samples of the threads whose name contains {@code thread} (JMH names its workers
     * {@code <benchmark>-jmh-worker-N}).
     */
    public static JfrSummary read(Path recording, String thread) throws IOException {
        JfrSummary summary = new JfrSummary();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                summary.add(file.readEvent(), thread);
            }
        }
        return summary;
    }

    private void add(RecordedEvent event, String thread) {
        String type = event.getEventType().getName();
        switch (type) {
            case "jdk.ExecutionSample" -> {
                if (ours(event.getThread("sampledThread"), thread)) {
                    sample(event.getStackTrace());
                    first = first == null || event.getStartTime().isBefore(first) ? event.getStartTime() : first;
                    last = last == null || event.getStartTime().isAfter(last) ? event.getStartTime() : last;
                }
            }
            case "jdk.ObjectAllocationSample" -> {
                if (ours(event.getThread("eventThread"), thread)) {
                    RecordedClass cls = event.getClass("objectClass");
                    long weight = event.getLong("weight");
                    allocations.merge(cls == null ? "?" : cls.getName(), weight, Long::sum);
                    allocated += weight;
                }
            }
            case "jdk.GarbageCollection" -> {
                gcPauses = gcPauses.plus(event.getDuration("sumOfPauses"));
                collections++;
            }
            default -> {
                // not summarised
            }
        }
    }

    private static boolean ours(RecordedThread t, String thread) {
        return t != null && t.getJavaName() != null && t.getJavaName().contains(thread);
    }

    private void sample(RecordedStackTrace stack) {
        if (stack == null || stack.getFrames().isEmpty()) {
            return;
        }
        samples++;
        if (stack.isTruncated()) {
            truncated++;
        }
        List<RecordedFrame> frames = stack.getFrames();
        String leaf = name(frames.get(0).getMethod());
        self.merge(leaf, 1, Integer::sum);
        libraries.merge(library(frames.get(0).getMethod().getType().getName()), 1, Integer::sum);
        String phase = "other (JVM, harness)";
        for (RecordedFrame frame : frames) {
            String found = phase(frame.getMethod());
            if (found != null) {
                phase = found;
                break;
            }
        }
        phases.merge(phase, 1, Integer::sum);
    }

    /**
     * The chain phase a frame belongs to, or {@code null} for a frame that only helps (collections,
     * {@code java.time}, crypto, the CEL runtime, ...): the first frame from the leaf that has a
     * phase decides the sample's. Any {@code *Step} of the chain shows up as {@code step: <class>}.
     */
    static String phase(RecordedMethod method) {
        String cls = method.getType().getName();
        String name = method.getName();
        if (cls.startsWith("com.networknt.schema.")) {
            return "schema validation: networknt";
        }
        if (cls.startsWith("dev.sluice.core.schema.")) {
            return "schema validation: sluice (EventSchema, fast path)";
        }
        if (cls.equals("dev.sluice.core.stage.ValidateStep")) {
            return name.equals("isRfc3339")
                    ? "RFC 3339 checks (OffsetDateTime.parse in ValidateStep.isRfc3339)"
                    : "envelope checks (ValidateStep: occurredAt, type)";
        }
        if (cls.equals("com.fasterxml.jackson.databind.ObjectMapper")) {
            if (name.startsWith("readTree") || name.startsWith("_readTree")) {
                return "parse (ObjectMapper.readTree)";
            }
            if (name.startsWith("writeValue")) {
                return "serialise (ObjectMapper.writeValueAsBytes)";
            }
        }
        if (cls.equals("dev.sluice.core.stage.StageChain")) {
            return name.equals("accept")
                    ? "accept (occurredAt parse, ingestedAt, ProcessedEvent)"
                    : "chain glue (StageChain.process)";
        }
        if (cls.startsWith("dev.sluice.core.stage.") && cls.endsWith("Step")) {
            return "step: " + cls.substring(cls.lastIndexOf('.') + 1);
        }
        if (cls.startsWith("dev.sluice.bench.")) {
            return "benchmark loop";
        }
        return null;
    }

    private static String name(RecordedMethod method) {
        return method.getType().getName() + "." + method.getName();
    }

    private static String library(String cls) {
        for (String[] l : LIBRARIES) {
            if (cls.startsWith(l[0])) {
                return l[1];
            }
        }
        int dot = cls.lastIndexOf('.');
        return dot < 0 ? cls : cls.substring(0, dot);
    }

    /** Execution samples counted. */
    public int samples() {
        return samples;
    }

    /** The share of samples, 0 to 1, whose innermost phase is this one. */
    public double phaseShare(String prefix) {
        int n = 0;
        for (Map.Entry<String, Integer> e : phases.entrySet()) {
            if (e.getKey().startsWith(prefix)) {
                n += e.getValue();
            }
        }
        return samples == 0 ? 0 : (double) n / samples;
    }

    /** Prints the summary, {@code top} rows per table. */
    public void print(PrintStream out, int top) {
        out.printf(
                Locale.ROOT,
                "%d execution samples of the benchmark thread (%d with truncated stacks)%n",
                samples,
                truncated);
        out.println();
        out.println("Chain phases (inclusive; each sample counted once, for its innermost phase):");
        table(out, phases, samples, Integer.MAX_VALUE);
        out.println();
        out.printf(Locale.ROOT, "Top %d methods by self time:%n", top);
        table(out, self, samples, top);
        out.println();
        out.println("Self time by library:");
        table(out, libraries, samples, top);
        if (allocated > 0) {
            out.println();
            out.printf(
                    Locale.ROOT, "Top %d allocated types (jdk.ObjectAllocationSample weight; sampled, rough):%n", top);
            Map<String, Integer> perMille = new HashMap<>();
            allocations.forEach((k, v) -> perMille.put(k, (int) Math.round(1000.0 * v / allocated)));
            table(out, perMille, 1000, top);
        }
        if (first != null && last != null && last.isAfter(first)) {
            double seconds = Duration.between(first, last).toNanos() / 1e9;
            out.println();
            out.printf(
                    Locale.ROOT,
                    "GC: %d collections, %.0f ms of pauses over %.0f s of recording (%.1f %%)%n",
                    collections,
                    gcPauses.toNanos() / 1e6,
                    seconds,
                    100.0 * gcPauses.toNanos() / 1e9 / seconds);
        }
    }

    private static void table(PrintStream out, Map<String, Integer> counts, int total, int top) {
        List<Map.Entry<String, Integer>> rows = new ArrayList<>(counts.entrySet());
        rows.sort(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        for (int i = 0; i < Math.min(top, rows.size()); i++) {
            Map.Entry<String, Integer> row = rows.get(i);
            out.printf(Locale.ROOT, "  %5.1f %%  %s%n", 100.0 * row.getValue() / total, row.getKey());
        }
    }
}
