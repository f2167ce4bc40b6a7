package dev.sluice.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
    public record Usage(
            int cores, double seconds, List<Figure> processes, double machineCores, List<ThreadFigure> threads) {
        public Usage {
            processes = List.copyOf(processes);
            threads = List.copyOf(threads);
        }

        /** Without the threads of this JVM. */
        public Usage(int cores, double seconds, List<Figure> processes, double machineCores) {
            this(cores, seconds, processes, machineCores, List.of());
        }

        /** Without the machine's own figure (not Linux): every process of the run counted, nothing else. */
        public Usage(int cores, double seconds, List<Figure> processes) {
            this(cores, seconds, processes, Double.NaN);
        }

        /** The same figures with the threads of this JVM, busiest first. */
        public Usage withThreads(List<ThreadFigure> threads) {
            return new Usage(cores, seconds, processes, machineCores, threads);
        }

        /** The single thread of this JVM that used the most CPU, if its threads were read. */
        public Optional<ThreadFigure> busiestThread() {
            return threads.stream()
                    .filter(t -> !t.name().equals(JVM_INTERNAL))
                    .max(java.util.Comparator.comparingDouble(ThreadFigure::busiestThreadCores));
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
            boolean ownJvm = top.pid() == ProcessHandle.current().pid() && !threads.isEmpty();
            if (ownJvm) {
                // many threads: it bounds the run only when one of them used a whole core
                ThreadFigure thread = busiestThread().orElse(null);
                if (thread != null && thread.busiestThreadCores() >= SATURATED) {
                    return String.format(
                            Locale.ROOT,
                            "%s's thread %s (%.2f cores of the process's %.2f)",
                            top.name(),
                            thread.name(),
                            thread.busiestThreadCores(),
                            top.averageCores());
                }
                return String.format(
                        Locale.ROOT,
                        "no process CPU-bound (%.2f of %d cores in use; busiest %s at %.2f over %d threads,"
                                + " its busiest thread %s at %.2f)",
                        totalCores(),
                        cores,
                        top.name(),
                        top.averageCores(),
                        threads.stream()
                                .filter(t -> !t.name().equals(JVM_INTERNAL))
                                .mapToInt(ThreadFigure::threads)
                                .sum(),
                        thread == null ? "?" : thread.name(),
                        thread == null ? 0.0 : thread.busiestThreadCores());
            }
            if (top.averageCores() >= SATURATED) {
                return SINGLE_THREADED.contains(top.name().replaceFirst(" #\\d+$", ""))
                        ? String.format(
                                Locale.ROOT,
                                "%s (%.2f cores, one thread: a Node.js emulator)",
                                top.name(),
                                top.averageCores())
                        : String.format(
                                Locale.ROOT,
                                "%s (%.2f cores; its threads not measured)",
                                top.name(),
                                top.averageCores());
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

    /** The processes that run their work on one thread (Node.js emulators). */
    static final Set<String> SINGLE_THREADED = Set.of("kinesis-mock", "dynalite", "iam-evaluator");

    /**
     * The part of this JVM's CPU time no Java thread accounts for: the JIT compilers, the garbage
     * collector and the VM's own threads (and the last second of threads that ended between samples).
     */
    public static final String JVM_INTERNAL = "JIT, GC and VM threads";

    /**
     * What the threads of one name used in this JVM (a pool's threads share a name but for a trailing
     * number: {@code access-gate-dynamodb-7} counts as {@code access-gate-dynamodb}).
     *
     * @param name the threads' name without the trailing number, or {@link #JVM_INTERNAL}
     * @param threads how many threads of that name ran during the run (0 for {@link #JVM_INTERNAL})
     * @param cpuSeconds their CPU time during the run together
     * @param averageCores cpuSeconds ÷ the run's wall time
     * @param busiestThreadCores the busiest single thread's CPU time ÷ the run's wall time
     */
    public record ThreadFigure(
            String name, int threads, double cpuSeconds, double averageCores, double busiestThreadCores) {}

    /** The window over which {@link Figure#peakCores()} is taken. */
    static final int PEAK_WINDOW = 5;

    private final Supplier<Stream<ProcessHandle>> processes;
    private final ScheduledExecutorService sampler;
    private final long startNanos;
    private final Map<Long, String> commands = new HashMap<>();
    /** pid → CPU nanoseconds at each sample (0 = at the start), null before it was first seen. */
    private final Map<Long, List<Long>> cpu = new LinkedHashMap<>();

    private int samples;
    /** This JVM's threads: id → name, and id → {CPU nanoseconds at the first sample, at the latest}. */
    private final Map<Long, String> threadNames = new HashMap<>();

    private final Map<Long, long[]> threadCpu = new HashMap<>();
    private final java.lang.management.ThreadMXBean threadBean = threadBean();
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
        sampleThreads();
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

    private static java.lang.management.ThreadMXBean threadBean() {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        try {
            if (!bean.isThreadCpuTimeSupported()) {
                return null;
            }
            if (!bean.isThreadCpuTimeEnabled()) {
                bean.setThreadCpuTimeEnabled(true);
            }
            return bean;
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** This JVM's threads' CPU time so far; a thread started during the run counts from 0. */
    private void sampleThreads() {
        if (threadBean == null) {
            return;
        }
        for (java.lang.management.ThreadInfo info : threadBean.getThreadInfo(threadBean.getAllThreadIds(), 0)) {
            if (info == null) {
                continue; // ended meanwhile
            }
            long nanos = threadBean.getThreadCpuTime(info.getThreadId());
            if (nanos < 0) {
                continue;
            }
            long[] first = threadCpu.computeIfAbsent(info.getThreadId(), id -> {
                threadNames.put(id, info.getThreadName());
                return new long[] {samples == 0 ? nanos : 0L, nanos};
            });
            first[1] = nanos;
        }
    }

    /** Stops sampling and returns the run's figures. */
    public synchronized Usage stop() {
        sampler.shutdownNow();
        sample();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        int cores = Runtime.getRuntime().availableProcessors();
        Usage usage = usage(cores, seconds, commands, cpu);
        long self = ProcessHandle.current().pid();
        Optional<Figure> own =
                usage.processes().stream().filter(f -> f.pid() == self).findFirst();
        if (threadBean != null && own.isPresent()) {
            Map<Long, Long> used = new HashMap<>();
            threadCpu.forEach((id, t) -> used.put(id, t[1] - t[0]));
            usage = usage.withThreads(threads(seconds, own.get().cpuSeconds(), threadNames, used));
        }
        long[] machineAtEnd = machine();
        if (machineAtStart == null || machineAtEnd == null || machineAtEnd[1] <= machineAtStart[1]) {
            return usage;
        }
        double busy = (double) (machineAtEnd[0] - machineAtStart[0]) / (machineAtEnd[1] - machineAtStart[1]);
        return new Usage(usage.cores(), usage.seconds(), usage.processes(), busy * cores, usage.threads());
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

    /**
     * This JVM's threads grouped by name without a trailing number, busiest first, and what the
     * process used beyond them ({@link #JVM_INTERNAL}, when positive).
     *
     * @param processCpuSeconds the process's own CPU time over the run (the operating system's)
     * @param names thread id → name
     * @param cpuNanos thread id → CPU nanoseconds during the run
     */
    static List<ThreadFigure> threads(
            double seconds, double processCpuSeconds, Map<Long, String> names, Map<Long, Long> cpuNanos) {
        Map<String, double[]> groups = new TreeMap<>(); // name → {threads, cpu seconds, busiest seconds}
        double javaSeconds = 0;
        for (var e : cpuNanos.entrySet()) {
            double used = e.getValue() / 1e9;
            javaSeconds += used;
            String group = threadGroup(names.getOrDefault(e.getKey(), "?"));
            double[] g = groups.computeIfAbsent(group, k -> new double[3]);
            g[0]++;
            g[1] += used;
            g[2] = Math.max(g[2], used);
        }
        List<ThreadFigure> figures = new ArrayList<>();
        groups.forEach((name, g) -> figures.add(new ThreadFigure(
                name, (int) g[0], g[1], seconds > 0 ? g[1] / seconds : 0, seconds > 0 ? g[2] / seconds : 0)));
        double internal = processCpuSeconds - javaSeconds;
        if (internal > 0) {
            double cores = seconds > 0 ? internal / seconds : 0;
            figures.add(new ThreadFigure(JVM_INTERNAL, 0, internal, cores, cores));
        }
        figures.sort((a, b) -> Double.compare(b.cpuSeconds(), a.cpuSeconds()));
        return figures;
    }

    /** A thread's name without the number a pool gives each of its threads. */
    static String threadGroup(String threadName) {
        String name = threadName.replaceFirst("[-_#@ ]?\\d+$", "");
        return name.isEmpty() ? threadName : name;
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
