package dev.sluice.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.profile.JavaFlightRecorderProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@code ./sluice bench core}: runs {@link StageChainBenchmark}'s chain, baseline and naive stage in
 * one JMH run (one fork each, single thread), prints a table and ends with one machine-readable
 * line:
 *
 * <pre>RESULT chain_events_per_s=N baseline_events_per_s=N ratio=R chain_bytes_per_event=N baseline_bytes_per_event=N
 *        naive_events_per_s=N ratio_naive=R naive_bytes_per_event=N</pre>
 *
 * <p>({@code ratio} is chain / baseline, {@code ratio_naive} chain / naive; the bytes are JMH's
 * {@code gc.alloc.rate.norm} per event, from its GC profiler). When the stage has a step {@link
 * NaiveStage} does not cover, the naive stage is left out and its three keys say {@code n/a}.
 *
 * <p>{@code --quick} is a ~35 s smoke run; {@code --profile} runs only the chain under Flight
 * Recorder and JMH's GC profiler and summarises where the time goes.
 */
public final class BenchCore {

    static final String USAGE = "usage: ./sluice bench [core] [--quick] [--profile] [--pipeline FILE] [--stage NAME]";

    /** Forked benchmark JVMs: a fixed heap, so that sizing does not move the numbers. */
    static final List<String> FORK_JVM_ARGS = List.of("-Xms1g", "-Xmx1g");

    /** What the command line asks for. */
    record Settings(boolean quick, boolean profile, boolean help, String pipeline, String stage, boolean all) {

        /**
         * Iterations and their length: full ≈ 2 min for the three benchmarks, quick ≈ 35 s. The chain
         * reaches its plateau after 2–3 warm-up iterations on an idle 2-core machine; a profile
         * warms up longer so that the recording (measurement only) holds no JIT warm-up.
         */
        int warmupIterations() {
            return quick ? 2 : profile ? 8 : 5;
        }

        TimeValue warmupTime() {
            return TimeValue.seconds(quick ? 2 : 3);
        }

        int measurementIterations() {
            return quick ? 2 : 5;
        }

        TimeValue measurementTime() {
            return TimeValue.seconds(quick ? 2 : 4);
        }
    }

    private BenchCore() {}

    public static void main(String[] args) {
        Settings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice bench core: " + e.getMessage() + " (" + USAGE + ")");
            System.exit(2);
            return;
        }
        if (settings.help()) {
            System.out.println(USAGE);
            System.out.println("  --quick          a ~35 s smoke run (fewer, shorter iterations); numbers are rough");
            System.out.println("  --profile        run only the chain under Flight Recorder and summarise its costs");
            System.out.println("  --pipeline FILE  the definition whose chain to measure (default: the jar's "
                    + Workload.DEFAULT_PIPELINE.substring(Workload.CLASSPATH.length()) + ")");
            System.out.println("  --stage NAME     the stage to measure (default: the definition's first stage)");
            return;
        }
        Checked checked;
        try {
            checked = check(settings);
        } catch (RuntimeException e) {
            System.err.println("sluice bench core: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            int status = settings.profile()
                    ? profile(settings, checked.stage(), System.out)
                    : compare(settings, checked, System.out);
            System.exit(status);
        } catch (RunnerException | IOException | RuntimeException e) {
            System.err.println("sluice bench core: the benchmark run failed: " + e);
            System.exit(1);
        }
    }

    /** Reads the arguments; {@link IllegalArgumentException} with one line when they make no sense. */
    static Settings parse(String[] args) {
        boolean quick = false;
        boolean profile = false;
        boolean help = false;
        boolean all = false;
        String pipeline = Workload.DEFAULT_PIPELINE;
        String stage = "";
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> quick = true;
                case "--profile" -> profile = true;
                case "--all" -> all = true;
                case "-h", "--help", "help" -> help = true;
                case "--pipeline", "--stage" -> {
                    if (i + 1 >= args.length || args[i + 1].startsWith("--") || args[i + 1].isBlank()) {
                        throw new IllegalArgumentException(arg + " needs a value");
                    }
                    String value = args[++i];
                    if (arg.equals("--stage")) {
                        stage = value;
                    } else {
                        pipeline = value.startsWith(Workload.CLASSPATH)
                                ? value
                                : Path.of(value).toAbsolutePath().normalize().toString();
                    }
                }
                default ->
                    throw new IllegalArgumentException(
                            arg.startsWith("-") ? "unknown option '" + arg + "'" : "unexpected argument '" + arg + "'");
            }
        }
        return new Settings(quick, profile, help, pipeline, stage, all);
    }

    /**
     * The stage to measure, and why the naive stage cannot run it ({@code null} when it can).
     */
    record Checked(String stage, String naiveUnsupported) {}

    /** Compiles the chain once here, so that a bad definition fails in a second, not in a fork. */
    private static Checked check(Settings settings) {
        ObjectMapper mapper = Workload.mapper();
        SchemaCatalog schemas = Workload.schemas(mapper);
        PipelineDefinition definition = Workload.pipeline(settings.pipeline(), schemas);
        String stage = Workload.stage(definition, settings.stage());
        Workload.compile(definition, stage, schemas, mapper);
        try {
            Workload.naive(definition, stage, schemas, mapper, Clock.systemUTC());
            return new Checked(stage, null);
        } catch (UnsupportedOperationException e) {
            return new Checked(stage, e.getMessage());
        }
    }

    private static ChainedOptionsBuilder options(Settings settings, String stage, String benchmarks) {
        // explicit, so that the forks do not inherit this JVM's options (its small heap, its collector)
        List<String> jvmArgs = new ArrayList<>();
        String root = System.getProperty("sluice.root");
        if (root != null && !root.isBlank()) {
            jvmArgs.add("-Dsluice.root=" + root);
        }
        String include = settings.all()
                ? "^" + Pattern.quote(BenchCore.class.getPackageName()) + "\\..*" // every benchmark in the jar
                : "^" + Pattern.quote(StageChainBenchmark.class.getName()) + "\\.(" + benchmarks + ")$";
        return new OptionsBuilder()
                .include(include)
                .forks(1)
                .threads(1)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(settings.warmupTime())
                .measurementIterations(settings.measurementIterations())
                .measurementTime(settings.measurementTime())
                .jvmArgs(jvmArgs.toArray(String[]::new))
                .jvmArgsAppend(FORK_JVM_ARGS.toArray(String[]::new)) // replaces @Fork's, same values
                .param("pipeline", settings.pipeline())
                .param("stage", stage)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.NORMAL);
    }

    /** Chain, baseline and naive stage side by side. */
    private static int compare(Settings settings, Checked checked, PrintStream out) throws RunnerException {
        String stage = checked.stage();
        boolean naive = checked.naiveUnsupported() == null;
        ChainedOptionsBuilder options = options(settings, stage, naive ? "chain|baseline|naive" : "chain|baseline")
                .addProfiler(GCProfiler.class);
        if (!naive) {
            options.exclude("^" + Pattern.quote(StageChainBenchmark.class.getName()) + "\\.naive$"); // --all too
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Result<?> chain = primary(results, "chain");
        Result<?> baseline = primary(results, "baseline");
        Result<?> naiveStage = naive ? primary(results, "naive") : null;
        double ratio = chain.getScore() / baseline.getScore();
        double ratioNaive = naive ? chain.getScore() / naiveStage.getScore() : Double.NaN;
        double chainBytes = allocation(results, "chain");
        double baselineBytes = allocation(results, "baseline");
        double naiveBytes = naive ? allocation(results, "naive") : Double.NaN;

        out.println();
        out.printf(
                Locale.ROOT,
                "Sluice core benchmark: %d-event batches, %,d generated payments (%.1f %% invalid) cycled,"
                        + " 1 thread, %s%n",
                Workload.BATCH_SIZE,
                Workload.EVENTS,
                Workload.INVALID_SHARE * 100,
                settings.quick() ? "quick run (rough numbers)" : "full run");
        out.printf(
                Locale.ROOT,
                "%-9s %14s %13s %12s %8s  %s%n",
                "benchmark",
                "events/s",
                "± error",
                "bytes/event",
                "chain ÷",
                "what");
        row(out, "chain", chain, chainBytes, 1.0, describe(settings.pipeline(), stage));
        row(
                out,
                "baseline",
                baseline,
                baselineBytes,
                ratio,
                "Jackson readTree + writeValueAsBytes of the same bytes, nothing else");
        if (naive) {
            row(
                    out,
                    "naive",
                    naiveStage,
                    naiveBytes,
                    ratioNaive,
                    "the stage by hand: readTree, networknt validate, mask on the tree, same steps, writeValueAsBytes");
        } else {
            out.println("naive     (not run: " + checked.naiveUnsupported() + ")");
        }
        out.println("(error: half-width of JMH's 99.9 % confidence interval; bytes/event: gc.alloc.rate.norm;"
                + " chain ÷: the chain's events/s over the row's)");
        Path directory = BenchReport.write(results, settings, stage, describe(settings.pipeline(), stage));
        out.println("report: " + directory.resolve("report.html"));
        out.printf(
                Locale.ROOT,
                "RESULT chain_events_per_s=%d baseline_events_per_s=%d ratio=%.2f chain_bytes_per_event=%d"
                        + " baseline_bytes_per_event=%d naive_events_per_s=%s ratio_naive=%s naive_bytes_per_event=%s%n",
                Math.round(chain.getScore()),
                Math.round(baseline.getScore()),
                ratio,
                Math.round(chainBytes),
                Math.round(baselineBytes),
                naive ? Long.toString(Math.round(naiveStage.getScore())) : "n/a",
                naive ? String.format(Locale.ROOT, "%.2f", ratioNaive) : "n/a",
                naive ? Long.toString(Math.round(naiveBytes)) : "n/a");
        return 0;
    }

    /** The chain alone, under Flight Recorder and the GC profiler, summarised. */
    private static int profile(Settings settings, String stage, PrintStream out) throws RunnerException, IOException {
        Path dir = profileDirectory();
        Files.createDirectories(dir);
        Collection<RunResult> results = new Runner(options(settings, stage, "chain")
                        .addProfiler(GCProfiler.class)
                        .addProfiler(
                                JavaFlightRecorderProfiler.class,
                                "dir=" + dir + ";configName=profile;stackDepth=256;debugNonSafePoints=true")
                        .build())
                .run();
        RunResult run = results.iterator().next();
        Result<?> chain = run.getPrimaryResult();
        Path recording = newestRecording(dir);
        JfrSummary summary = JfrSummary.read(recording, "StageChainBenchmark.chain");

        out.println();
        out.printf(
                Locale.ROOT,
                "Profile of the chain (%s): %,d events/s under Flight Recorder"
                        + " (less than unprofiled: JFR starts in the first measured iteration)%n",
                describe(settings.pipeline(), stage),
                Math.round(chain.getScore()));
        Result<?> alloc = run.getSecondaryResults().get("gc.alloc.rate.norm");
        if (alloc != null) {
            out.printf(Locale.ROOT, "allocation: %,.0f bytes per event (gc.alloc.rate.norm)%n", alloc.getScore());
        }
        out.println("recording: " + recording + "  (open in JDK Mission Control, or `jfr print`/`jfr summary`)");
        out.println();
        summary.print(out, 10);
        out.printf(
                Locale.ROOT,
                "PROFILE profiled_events_per_s=%d samples=%d validation_share=%.2f recording=%s%n",
                Math.round(chain.getScore()),
                summary.samples(),
                summary.phaseShare("schema validation"),
                recording);
        return 0;
    }

    private static Result<?> primary(Collection<RunResult> results, String method) {
        String name = StageChainBenchmark.class.getName() + "." + method;
        return results.stream()
                .filter(r -> r.getParams().getBenchmark().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("JMH returned no result for " + name))
                .getPrimaryResult();
    }

    /** Bytes allocated per event (JMH's {@code gc.alloc.rate.norm}); NaN if the profiler gave none. */
    private static double allocation(Collection<RunResult> results, String method) {
        String name = StageChainBenchmark.class.getName() + "." + method;
        return results.stream()
                .filter(r -> r.getParams().getBenchmark().equals(name))
                .findFirst()
                .map(r -> r.getSecondaryResults().get("gc.alloc.rate.norm"))
                .map(Result::getScore)
                .orElse(Double.NaN);
    }

    private static void row(PrintStream out, String name, Result<?> result, double bytes, double ratio, String what) {
        double error = result.getScoreError();
        String err = Double.isNaN(error) ? "n/a" : String.format(Locale.ROOT, "± %,d", Math.round(error));
        String alloc = Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%,d", Math.round(bytes));
        out.printf(
                Locale.ROOT,
                "%-9s %,14d %13s %12s %8.2f  %s%n",
                name,
                Math.round(result.getScore()),
                err,
                alloc,
                ratio,
                what);
    }

    private static String describe(String pipeline, String stage) {
        String file = pipeline.startsWith(Workload.CLASSPATH)
                ? pipeline.substring(Workload.CLASSPATH.length())
                : Path.of(pipeline).getFileName().toString();
        return file + " stage '" + stage + "': parse, steps, serialise accepted";
    }

    /** {@code load-tests/benchmarks/target/jfr} of the checkout when known, else {@code ./sluice-bench-jfr}. */
    private static Path profileDirectory() {
        String root = System.getProperty("sluice.root");
        if (root != null && !root.isBlank() && Files.isDirectory(Path.of(root, "load-tests", "benchmarks"))) {
            return Path.of(root, "load-tests", "benchmarks", "target", "jfr");
        }
        return Path.of("sluice-bench-jfr").toAbsolutePath();
    }

    private static Path newestRecording(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".jfr"))
                    .max(Comparator.comparing(BenchCore::modified))
                    .orElseThrow(() -> new IllegalStateException("Flight Recorder wrote no recording under " + dir));
        }
    }

    private static java.nio.file.attribute.FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
