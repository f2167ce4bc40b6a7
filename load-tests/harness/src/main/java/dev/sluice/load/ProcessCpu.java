package dev.sluice.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * CPU time per process of the local stack during a run: this JVM (producer, gates, embedded S3 and
 * SQS, the Lambda stages and their event-source mappings) and every process it started (kinesis-mock,
 * dynalite, the IAM evaluator, the KCL workers, jsii). Sampled once a second from the operating
 * system's own accounting ({@link ProcessHandle.Info#totalCpuDuration()}, user plus system time), so
 * what bounds a run can be read off: a single-threaded emulator near one core, or the machine's cores
 * all used.
 */
public final class ProcessCpu implements AutoCloseable {

    /**
     * What one process used over the run.
     *
     * @param name what the process is ({@link #nameOf(String)}), with {@code #2}… when several share it
     * @param pid its process id
     * @param cpuSeconds user plus system CPU time during the run
     * @param averageCores cpuSeconds ÷ the run's wall time
     * @param peakCores the most cores it used over any {@link #PEAK_WINDOW} of the run
     * @param perSecond cores used in each second of the run (index = seconds since the start)
     */
    public record Figure(
            String name, long pid, double cpuSeconds, double averageCores, double peakCores, List<Double> perSecond) {
        public Figure {
            perSecond = List.copyOf(perSecond);
        }
    }

    /**
     * The run's CPU use.
     *
     * @param cores the machine's processors
     * @param seconds the wall time sampled
     * @param processes every process, busiest first
     */
    public record Usage(int cores, double seconds, List<Figure> processes, double machineCores) {
        public Usage {
            processes = List.copyOf(processes);
        }

        /** Without the machine's own figure (not Linux): every process of the run counted, nothing else. */
        public Usage(int cores, double seconds, List<Figure> processes) {
            this(cores, seconds, processes, Double.NaN);
        }

        /**
         * Cores other processes of the machine used meanwhile (other builds, other runs): the machine's
         * busy cores less the run's own; NaN when the machine's figure is unknown.
         */
        public double othersCores() {
            return Double.isNaN(machineCores) ? Double.NaN : Math.max(0, machineCores - totalCores());
        }

        /** Cores used on average by all the processes together. */
        public double totalCores() {
            return processes.stream().mapToDouble(Figure::averageCores).sum();
        }

        /** The busiest process, if any was measured. */
        public Optional<Figure> busiest() {
            return processes.stream().findFirst();
        }

        /**
         * What bounded the run, in a few words: the machine when its cores were (nearly) all in use,
         * else the busiest process when it ran at (nearly) one core (the emulators are single-threaded
         * Node.js processes), else nothing CPU-bound.
         */
        public String bound() {
            if (processes.isEmpty()) {
                return "not measured";
            }
            if (!Double.isNaN(machineCores) && machineCores >= SATURATED * cores && othersCores() >= 0.1 * cores) {
                return String.format(
                        Locale.ROOT,
                        "the machine's CPU, shared: %.2f of %d cores busy, %.2f of them other processes"
                                + " (the figures are not this stack's own ceiling)",
                        machineCores,
                        cores,
                        othersCores());
            }
            if (totalCores() >= SATURATED * cores) {
                return String.format(Locale.ROOT, "the machine's CPU (%.2f of %d cores in use)", totalCores(), cores);
            }
            Figure top = processes.get(0);
            if (top.averageCores() >= SATURATED) {
                return String.format(Locale.ROOT, "%s (%.2f cores, one thread)", top.name(), top.averageCores());
            }
            return String.format(
                    Locale.ROOT,
                    "no process CPU-bound (%.2f of %d cores in use; busiest %s at %.2f)",
                    totalCores(),
                    cores,
                    top.name(),
                    top.averageCores());
        }
    }

    /** A core this busy (or the machine's cores this busy together) is counted as the bound. */
    static final double SATURATED = 0.9;

    /** The window over which {@link Figure#peakCores()} is taken. */
    static final int PEAK_WINDOW = 5;

    private final Supplier<Stream<ProcessHandle>> processes;
    private final ScheduledExecutorService sampler;
    private final long startNanos;
    private final Map<Long, String> commands = new HashMap<>();
    /** pid → CPU nanoseconds at each sample (0 = at the start), null before it was first seen. */
    private final Map<Long, List<Long>> cpu = new LinkedHashMap<>();

    private int samples;
    /** The machine's busy and total CPU time at the start ({@code /proc/stat}), null when unknown. */
    private final long[] machineAtStart;

    private ProcessCpu(Supplier<Stream<ProcessHandle>> processes) {
        this.processes = processes;
        this.startNanos = System.nanoTime();
        this.machineAtStart = machine();
        sample();
        this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-load-cpu");
            t.setDaemon(true);
            return t;
        });
        sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
    }

    /** Starts sampling this process and its descendants. */
    public static ProcessCpu start() {
        return new ProcessCpu(() -> Stream.concat(
                Stream.of(ProcessHandle.current()), ProcessHandle.current().descendants()));
    }

    private synchronized void sample() {
        List<ProcessHandle> now = processes.get().toList();
        for (ProcessHandle p : now) {
            ProcessHandle.Info info = p.info();
            Optional<Duration> total = info.totalCpuDuration();
            if (total.isEmpty()) {
                continue;
            }
            List<Long> series = cpu.computeIfAbsent(p.pid(), pid -> {
                commands.put(pid, info.commandLine().orElse(info.command().orElse("?")));
                List<Long> s = new ArrayList<>();
                // a process started during the run used nothing before its first sample
                long before = samples == 0 ? total.get().toNanos() : 0L;
                for (int i = 0; i < samples; i++) {
                    s.add(before);
                }
                return s;
            });
            while (series.size() < samples) {
                series.add(series.isEmpty() ? 0L : series.get(series.size() - 1));
            }
            series.add(total.get().toNanos());
        }
        samples++;
        // processes gone since keep their last figure
        for (List<Long> series : cpu.values()) {
            while (series.size() < samples) {
                series.add(series.isEmpty() ? 0L : series.get(series.size() - 1));
            }
        }
    }

    /** Stops sampling and returns the run's figures. */
    public synchronized Usage stop() {
        sampler.shutdownNow();
        sample();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        int cores = Runtime.getRuntime().availableProcessors();
        Usage usage = usage(cores, seconds, commands, cpu);
        long[] machineAtEnd = machine();
        if (machineAtStart == null || machineAtEnd == null || machineAtEnd[1] <= machineAtStart[1]) {
            return usage;
        }
        double busy = (double) (machineAtEnd[0] - machineAtStart[0]) / (machineAtEnd[1] - machineAtStart[1]);
        return new Usage(usage.cores(), usage.seconds(), usage.processes(), busy * cores);
    }

    /**
     * The machine's busy and total CPU time so far, in clock ticks, from the first line of {@code
     * /proc/stat} (busy = total − idle − iowait); null where there is no such file.
     */
    static long[] machine() {
        try {
            String line = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/stat"))
                    .get(0);
            return machine(line);
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@link #machine()} of the {@code cpu} line of {@code /proc/stat}. */
    static long[] machine(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu") || f.length < 6) {
            return null;
        }
        long total = 0;
        for (int i = 1; i < Math.min(f.length, 9); i++) { // user … steal; guest time is in user already
            total += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }

    /** The figures of sampled CPU series (one sample a second, the first at the start). */
    static Usage usage(int cores, double seconds, Map<Long, String> commands, Map<Long, List<Long>> cpu) {
        Map<String, Integer> seen = new TreeMap<>();
        List<Figure> figures = new ArrayList<>();
        for (var e : cpu.entrySet()) {
            List<Long> series = e.getValue();
            if (series.isEmpty()) {
                continue;
            }
            double used = (series.get(series.size() - 1) - series.get(0)) / 1e9;
            List<Double> perSecond = new ArrayList<>();
            for (int i = 1; i < series.size(); i++) {
                perSecond.add((series.get(i) - series.get(i - 1)) / 1e9);
            }
            double peak = 0;
            for (int i = 0; i < perSecond.size(); i++) {
                int to = Math.min(perSecond.size(), i + PEAK_WINDOW);
                double window = 0;
                for (int j = i; j < to; j++) {
                    window += perSecond.get(j);
                }
                peak = Math.max(peak, window / (to - i));
                if (to == perSecond.size()) {
                    break;
                }
            }
            String name = nameOf(commands.getOrDefault(e.getKey(), "?"));
            int n = seen.merge(name, 1, Integer::sum);
            figures.add(new Figure(
                    n == 1 ? name : name + " #" + n,
                    e.getKey(),
                    used,
                    seconds > 0 ? used / seconds : 0,
                    peak,
                    perSecond));
        }
        figures.sort((a, b) -> Double.compare(b.cpuSeconds(), a.cpuSeconds()));
        return new Usage(cores, seconds, figures);
    }

    /** What a process of the local stack is, from its command line. */
    static String nameOf(String commandLine) {
        if (commandLine.contains("kinesis-local")) {
            return "kinesis-mock";
        }
        if (commandLine.contains("dynalite")) {
            return "dynalite";
        }
        if (commandLine.contains("iam-evaluator")) {
            return "iam-evaluator";
        }
        if (commandLine.contains("quarkus-run.jar")) {
            return "kcl-worker";
        }
        if (commandLine.contains("jsii")) {
            return "jsii (CDK synthesis)";
        }
        if (commandLine.contains("sluice.jar") || commandLine.contains("java")) {
            return "sluice JVM";
        }
        return commandLine.length() > 40 ? commandLine.substring(0, 40) : commandLine;
    }
}
