package dev.sluice.emulators;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Node.js emulator running as a child process under the watchdog {@code bin/with-parent.js},
 * which ends it within about a second of this JVM's death. Its stdout and stderr go to a log file.
 */
final class NodeEmulator {

    private static final Logger LOG = LoggerFactory.getLogger(NodeEmulator.class);
    private static final int TAIL_BYTES = 16 * 1024;
    /** The watchdog's variable naming the address servers listen on instead of all interfaces. */
    static final String LISTEN_HOST_ENV = "WITH_PARENT_LISTEN_HOST";
    /** Every local port listens on loopback only: the local stack serves this machine, no other. */
    static final String LISTEN_HOST = "127.0.0.1";

    private final Emulator emulator;
    private final Process process;
    private final Path logFile;
    private final int port;
    private final long launchedNanos;
    private volatile List<ProcessHandle> descendants = List.of();

    private NodeEmulator(Emulator emulator, Process process, Path logFile, int port, long launchedNanos) {
        this.emulator = emulator;
        this.process = process;
        this.logFile = logFile;
        this.port = port;
        this.launchedNanos = launchedNanos;
    }

    /**
     * Starts {@code node with-parent.js <this JVM's pid> <script> <args...>} in the localstack
     * directory.
     *
     * @param port the port its API will listen on, for messages and readiness checks
     */
    static NodeEmulator launch(
            Emulator emulator,
            String node,
            Path localstackDirectory,
            Path script,
            List<String> args,
            Map<String, String> environment,
            Path logFile,
            int port) {
        // its own session: the emulator stands for an AWS service, whose CPU the workers do not share
        List<String> command = new ArrayList<>(OwnSession.prefix());
        command.add(node);
        command.add(localstackDirectory.resolve(LocalstackDirectory.WATCHDOG).toString());
        command.add(Long.toString(ProcessHandle.current().pid()));
        command.add(localstackDirectory.resolve(script).toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(localstackDirectory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        builder.environment().putAll(environment);
        // the watchdog binds every server of the emulator to loopback (kinesis-mock has no setting for it)
        builder.environment().put(LISTEN_HOST_ENV, LISTEN_HOST);
        try {
            Files.writeString(
                    logFile,
                    "---- " + Instant.now() + " " + String.join(" ", command) + " " + environment
                            + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + logFile, e);
        }
        long launched = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new LocalAwsException(
                    "cannot start " + emulator.displayName() + " with Node.js binary '" + node + "' (set -D"
                            + LocalAwsOptions.NODE_PROPERTY + "=<path to node> if it is not on the PATH)",
                    e);
        }
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            LOG.debug("closing stdin of {} failed", emulator.displayName(), e);
        }
        LOG.debug("{} started as pid {} on port {}, log {}", emulator.displayName(), process.pid(), port, logFile);
        return new NodeEmulator(emulator, process, logFile, port, launched);
    }

    Emulator emulator() {
        return emulator;
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    int port() {
        return port;
    }

    Path logFile() {
        return logFile;
    }

    long launchedNanos() {
        return launchedNanos;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code, waiting at most the given time for the process to end. */
    Integer awaitExit(Duration timeout) {
        try {
            if (process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                return process.exitValue();
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Whether the emulator's output says its port was taken. */
    boolean portWasTaken() {
        String tail = logTail();
        return tail.contains("EADDRINUSE") || tail.contains("Address already in use");
    }

    /** The last lines of the log file (at most 16 KiB). */
    String logTail() {
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
            long length = file.length();
            long from = Math.max(0, length - TAIL_BYTES);
            byte[] bytes = new byte[(int) (length - from)];
            file.seek(from);
            file.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            int header = text.lastIndexOf("---- ");
            if (header >= 0) {
                int lineEnd = text.indexOf('\n', header);
                text = lineEnd < 0 ? "" : text.substring(lineEnd + 1);
            }
            return text.strip();
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e.getMessage() + ")";
        }
    }

    /** Sends SIGTERM, remembering the descendants first so that they can be killed later. */
    void terminate() {
        if (!process.isAlive()) {
            return;
        }
        descendants = process.descendants().toList();
        LOG.debug("stopping {} (pid {})", emulator.displayName(), process.pid());
        process.destroy();
    }

    /**
     * Waits for the process to exit after {@link #terminate()}; kills it and its descendants with
     * SIGKILL when it has not exited in time.
     *
     * @return whether the process has exited
     */
    boolean awaitStopOrKill(Duration gracePeriod) {
        if (awaitExit(gracePeriod) == null) {
            LOG.info(
                    "{} (pid {}) did not exit within {} ms of SIGTERM: killing it",
                    emulator.displayName(),
                    process.pid(),
                    gracePeriod.toMillis());
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        descendants.forEach(ProcessHandle::destroyForcibly);
        return awaitExit(Duration.ofSeconds(5)) != null;
    }

    @Override
    public String toString() {
        return emulator.displayName() + "[pid " + process.pid() + ", port " + port + "]";
    }
}
