package dev.sluice.local.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker started on port 0 finds its port in Quarkus's start line of its log. */
class LocalKclWorkerPortTest {

    @TempDir
    Path dir;

    @Test
    void thePortIsTheOneQuarkusSaysItListensOn() throws IOException {
        Path log = dir.resolve("kcl.log");
        Files.writeString(
                log,
                "06:35:15.343 INFO  [i.quarkus] (main)  sluice-kcl 0.1.0-SNAPSHOT on JVM (powered by Quarkus 3.38.0)"
                        + " started in 4.063s. Listening on: http://127.0.0.1:36035\n");

        assertThat(LocalKclWorker.listeningPort(log)).isEqualTo(36035);
    }

    @Test
    void noPortBeforeQuarkusListensOrWithoutALog() throws IOException {
        Path log = dir.resolve("starting.log");
        Files.writeString(log, "---- started\n06:35:01.000 INFO  [s.a.k.c.Scheduler] (main) Initializing\n");

        assertThat(LocalKclWorker.listeningPort(log)).isZero();
        assertThat(LocalKclWorker.listeningPort(dir.resolve("missing.log"))).isZero();
    }

    @Test
    void aLogWrittenByTwoStartsGivesTheLastPort() throws IOException {
        Path log = dir.resolve("twice.log");
        Files.writeString(log, "Listening on: http://127.0.0.1:40001\n...\nListening on: http://127.0.0.1:40002\n");

        assertThat(LocalKclWorker.listeningPort(log)).isEqualTo(40002);
    }
}
