package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code ./sluice up} at a time: a second one is refused with one line naming the running
 * instance (it would overwrite {@code localstack/.run/endpoints.json}); a lock left by an instance
 * that is gone does not block.
 */
class UpLockTest {

    @TempDir
    Path root;

    @Test
    void aSecondUpIsRefusedNamingTheRunningInstance() throws Exception {
        Process running = new ProcessBuilder("sleep", "120").start();
        try {
            Path lock = root.resolve(SluiceCli.UP_LOCK);
            Files.createDirectories(lock.getParent());
            String started =
                    running.info().startInstant().map(Instant::toString).orElse("");
            String content = "pid=" + running.pid() + "\nstarted=" + started + "\n";
            Files.writeString(lock, content);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();

            int status = new SluiceCli(
                            root,
                            new PrintStream(out, true, StandardCharsets.UTF_8),
                            new PrintStream(err, true, StandardCharsets.UTF_8))
                    .run(List.of("up"));

            assertThat(status).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                    .containsExactly("sluice: another './sluice up' is running (pid " + running.pid()
                            + (started.isEmpty() ? "" : ", started " + started)
                            + "; lock localstack/.run/up.lock): stop it first (Ctrl-C in its terminal, or kill "
                            + running.pid() + ")");
            assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
            assertThat(Files.readString(lock))
                    .as("the running instance keeps its lock")
                    .isEqualTo(content);
        } finally {
            running.destroyForcibly().waitFor();
        }
    }

    @Test
    void aLockLeftByAnInstanceThatDiedIsTakenOverAndReleased() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path lock = root.resolve("up.lock");
        Files.writeString(lock, "pid=" + gone.pid() + "\nstarted=2026-01-01T00:00:00Z\n");

        try (RunLock taken = RunLock.acquire(lock, "up.lock")) {
            assertThat(Files.readString(lock))
                    .startsWith("pid=" + ProcessHandle.current().pid() + "\n");
        }
        assertThat(lock).doesNotExist();
    }

    @Test
    void aLockWhoseProcessIdNowBelongsToAnotherProcessIsTakenOver() throws Exception {
        Process other = new ProcessBuilder("sleep", "120").start();
        try {
            Path lock = root.resolve("up.lock");
            // the id is alive, but that process started long after the instance that wrote the lock
            Files.writeString(lock, "pid=" + other.pid() + "\nstarted=2001-01-01T00:00:00Z\n");

            try (RunLock taken = RunLock.acquire(lock, "up.lock")) {
                assertThat(Files.readString(lock))
                        .startsWith("pid=" + ProcessHandle.current().pid() + "\n");
            }
        } finally {
            other.destroyForcibly().waitFor();
        }
    }
}
