package dev.sluice.cli.coldstart;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * One cold start measured the way Lambda's Java runtime starts a function: a fresh JVM with the
 * runtime's flags, the runtime interface client on the class path, the deployment package unpacked
 * as the task root (the client loads the handler from {@code LAMBDA_TASK_ROOT} and its {@code lib/}
 * jars), and the Runtime API served by {@link LocalRuntimeApi}. Measured from just before the
 * process starts: to the client's first request for work (the handler is initialised) and to its
 * response (the first batch is processed).
 */
public final class ColdStart {

    /** The JVM flags of Lambda's Java runtimes that matter for start-up. */
    public static final List<String> LAMBDA_JVM_FLAGS = List.of(
            "-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true");

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    /**
     * A measured start.
     *
     * @param initMs process start → handler initialised (first {@code next})
     * @param firstBatchMs process start → response of the first invocation
     * @param classesLoaded classes the JVM had loaded when it answered ({@code java.cls.loadedClasses}
     *     plus {@code java.cls.sharedLoadedClasses}, those from the JDK's shared archive)
     * @param response the function's response
     */
    public record Sample(double initMs, double firstBatchMs, long classesLoaded, String response) {}

    /**
     * A function to start.
     *
     * @param name its name (for the ARN and the logs)
     * @param handler the handler string ({@code class::method} or {@code class})
     * @param taskRoot the unpacked deployment package
     * @param environment the function's variables (the runtime's own are added)
     * @param memoryMb the function's memory, which sizes the heap as Lambda does
     */
    public record Function(String name, String handler, Path taskRoot, Map<String, String> environment, int memoryMb) {}

    /** Classes whose jars make up the runtime's own class path ({@code /var/runtime/lib} in Lambda). */
    static final List<String> RUNTIME_CLASSES = List.of(
            "com.amazonaws.services.lambda.runtime.api.client.AWSLambda",
            "com.amazonaws.services.lambda.runtime.Context",
            "com.amazonaws.services.lambda.runtime.serialization.PojoSerializer",
            "software.amazon.awssdk.utilslite.SdkInternalThreadLocal",
            "software.amazon.awssdk.annotations.SdkInternalApi");

    private final Path javaBinary;
    private final List<Path> runtimeClasspath;
    private final Path logs;

    /**
     * @param java the {@code java} binary
     * @param runtimeClasspath the runtime interface client and its libraries ({@code /var/runtime/lib})
     * @param logs where each run's output goes
     */
    public ColdStart(Path java, List<Path> runtimeClasspath, Path logs) {
        this.javaBinary = java;
        this.runtimeClasspath = List.copyOf(runtimeClasspath);
        this.logs = logs;
    }

    /** The command line Lambda's Java runtime would run for this function. */
    public List<String> command(Function function) {
        List<String> command = new ArrayList<>();
        command.add(javaBinary.toString());
        // Lambda gives the heap about 85 % of the function's memory
        command.add("-Xmx" + Math.max(64, function.memoryMb() * 85 / 100) + "m");
        command.addAll(LAMBDA_JVM_FLAGS);
        command.add("-cp");
        command.add(String.join(
                java.io.File.pathSeparator,
                runtimeClasspath.stream().map(Path::toString).toList()));
        command.add("com.amazonaws.services.lambda.runtime.api.client.AWSLambda");
        command.add(function.handler());
        return command;
    }

    /** The variables Lambda sets, then the function's own. */
    public Map<String, String> environment(Function function, String runtimeApi) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("AWS_LAMBDA_RUNTIME_API", runtimeApi);
        env.put("_HANDLER", function.handler());
        env.put("LAMBDA_TASK_ROOT", function.taskRoot().toString());
        env.put("AWS_LAMBDA_FUNCTION_NAME", function.name());
        env.put("AWS_LAMBDA_FUNCTION_VERSION", "1");
        env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", Integer.toString(function.memoryMb()));
        env.put("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand");
        env.put("AWS_EXECUTION_ENV", "AWS_Lambda_java21");
        env.put("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/" + function.name());
        env.put("AWS_LAMBDA_LOG_STREAM_NAME", "bench");
        env.put("TZ", ":UTC");
        env.put("LANG", "en_US.UTF-8");
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        env.putAll(function.environment());
        return env;
    }

    /** Starts the function in a fresh JVM, gives it one invocation and measures. */
    public Sample run(Function function, String eventJson, String functionArn, String label)
            throws IOException, InterruptedException, TimeoutException {
        Files.createDirectories(logs);
        Path log = logs.resolve(label + ".log");
        try (LocalRuntimeApi api = new LocalRuntimeApi(eventJson, functionArn, System::nanoTime)) {
            ProcessBuilder builder = new ProcessBuilder(command(function))
                    .directory(function.taskRoot().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().clear();
            builder.environment().putAll(environment(function, api.address()));
            long start = System.nanoTime();
            Process process = builder.start();
            try {
                String response;
                try {
                    response = api.result(TIMEOUT);
                } catch (LocalRuntimeApi.FunctionFailure e) {
                    throw new LocalRuntimeApi.FunctionFailure(
                            function.name() + ": " + e.getMessage() + " (its output: " + log + ")");
                }
                long classes = loadedClasses(process.pid());
                return new Sample(
                        (api.initialisedAt() - start) / 1e6, (api.respondedAt() - start) / 1e6, classes, response);
            } finally {
                process.destroy();
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** Classes a running JVM has loaded, shared archive included (its performance counters, through jcmd); -1 if unknown. */
    static long loadedClasses(long pid) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return -1;
        }
        try {
            Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "PerfCounter.print")
                    .redirectErrorStream(true)
                    .start();
            String out;
            try (InputStream in = process.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            process.waitFor(30, TimeUnit.SECONDS);
            // classes from the JDK's class-data-sharing archive are counted apart
            long loaded = counter(out, "java.cls.loadedClasses");
            long shared = counter(out, "java.cls.sharedLoadedClasses");
            return loaded < 0 ? -1 : loaded + Math.max(0, shared);
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** A counter's value in {@code jcmd PerfCounter.print} output, or -1. */
    static long counter(String perfCounters, String name) {
        for (String line : perfCounters.split("\n")) {
            if (line.startsWith(name + "=")) {
                try {
                    return Long.parseLong(line.substring(name.length() + 1).trim());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    /** Unpacks a deployment zip into {@code dir} (which Lambda mounts as {@code /var/task}). */
    public static Path unzip(Path zip, Path dir) throws IOException {
        Files.createDirectories(dir);
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                Path target = dir.resolve(entry.getName()).normalize();
                if (!target.startsWith(dir)) {
                    throw new IOException(zip + ": entry " + entry.getName() + " escapes the task root");
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dir;
    }

    /** A task root holding only {@link MinimalHandler}. */
    public static Path minimalTaskRoot(Path dir) throws IOException {
        String resource = MinimalHandler.class.getName().replace('.', '/') + ".class";
        Path target = dir.resolve(resource);
        Files.createDirectories(target.getParent());
        try (InputStream in = MinimalHandler.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("no " + resource + " on the class path"));
            }
            Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return dir;
    }

    /** The jars of the runtime interface client and the libraries Lambda's Java runtime puts beside it. */
    public static List<Path> runtimeClasspath() {
        java.util.Set<Path> jars = new java.util.LinkedHashSet<>();
        for (String name : RUNTIME_CLASSES) {
            try {
                Class<?> type = Class.forName(name, false, ColdStart.class.getClassLoader());
                jars.add(Path.of(
                        type.getProtectionDomain().getCodeSource().getLocation().toURI()));
            } catch (ClassNotFoundException | java.net.URISyntaxException e) {
                throw new IllegalStateException("the runtime interface client's class path lacks " + name, e);
            }
        }
        return List.copyOf(jars);
    }

    /** The median of some figures. */
    public static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
