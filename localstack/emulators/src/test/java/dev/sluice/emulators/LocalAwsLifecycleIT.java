package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalAwsLifecycleIT {

    @Test
    void closeStopsEveryEmulatorAndFreesItsPorts() {
        LocalAws aws = LocalAws.start(LocalAwsOptions.defaults());
        List<ProcessHandle> children;
        List<URI> endpoints;
        try {
            aws.kinesis().listStreams();
            aws.dynamoDb().listTables();
            aws.s3().listBuckets();
            aws.sqs().listQueues();
            children = aws.childProcesses();
            assertThat(children).hasSize(2).allMatch(ProcessHandle::isAlive);
            endpoints = List.of(
                    aws.kinesisEndpoint(),
                    aws.kinesisTlsEndpoint(),
                    aws.dynamoDbEndpoint(),
                    aws.s3Endpoint(),
                    aws.sqsEndpoint());
            assertThat(endpoints).allMatch(LocalAwsLifecycleIT::accepts);
            assertThat(aws.startupMillis()).containsOnlyKeys(Emulator.values());
            assertThat(aws.logFile(Emulator.KINESIS)).exists();
            assertThat(aws.logFile(Emulator.DYNAMODB)).exists();
        } finally {
            aws.close();
        }
        assertThat(aws.isClosed()).isTrue();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(children).noneMatch(child -> Processes.isRunning(child.pid())));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(endpoints).noneMatch(LocalAwsLifecycleIT::accepts));
        aws.close(); // idempotent
    }

    @Test
    void nodeEmulatorsDieWithAKilledJvm() throws IOException {
        Path log = Files.createTempFile("orphaned-stack", ".log");
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-D" + LocalstackDirectory.ROOT_PROPERTY + "="
                        + System.getProperty(LocalstackDirectory.ROOT_PROPERTY, ""),
                OrphanedStackMain.class.getName());
        Process jvm = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture.runAsync(() -> readLines(jvm, lines));
        List<Long> pids = new ArrayList<>();
        try {
            await().atMost(Duration.ofSeconds(120))
                    .failFast("the stack JVM exited; see " + log, () -> !jvm.isAlive())
                    .until(() -> lines.contains(OrphanedStackMain.READY));
            lines.stream()
                    .filter(line -> line.startsWith(OrphanedStackMain.CHILD))
                    .map(line -> Long.parseLong(line.substring(OrphanedStackMain.CHILD.length())))
                    .forEach(pids::add);
            assertThat(pids).hasSize(2).allMatch(Processes::isRunning);
        } finally {
            jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
        }
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(pids).noneMatch(Processes::isRunning));
    }

    /**
     * Another build on the machine may bind a port between {@code FreePorts.pick()} and the
     * emulator's bind. kinesis-mock then logs EADDRINUSE for its TLS port and keeps running without
     * answering; the start stops it and relaunches it on fresh ports (CI failed once waiting 60 s).
     */
    @Test
    void anEmulatorWhosePortIsTakenIsRelaunchedOnFreshPorts() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int takenPort = taken.getLocalPort();
            // kinesis-mock draws first: its plain port, then its TLS port (the taken one)
            Deque<Integer> handedOut = new ArrayDeque<>(List.of(FreePorts.pick(), takenPort));
            List<Integer> given = new CopyOnWriteArrayList<>();
            IntSupplier ports = () -> {
                Integer next = handedOut.poll();
                int port = next != null ? next : FreePorts.pick();
                given.add(port);
                return port;
            };
            try (LocalAws aws = LocalAws.start(LocalAwsOptions.defaults(), ports)) {
                assertThat(aws.kinesis().listStreams().streamNames()).isEmpty();
                assertThat(aws.kinesisTlsEndpoint().getPort()).isNotEqualTo(takenPort);
                assertThat(accepts(aws.kinesisTlsEndpoint())).isTrue();
                String log = Files.readString(aws.logFile(Emulator.KINESIS));
                assertThat(log).contains("EADDRINUSE");
                assertThat(log.split("\n---- ", -1)).hasSizeGreaterThanOrEqualTo(2);
                // two ports for each kinesis-mock launch, one for dynalite
                assertThat(given).hasSizeGreaterThanOrEqualTo(5).containsOnlyOnce(takenPort);
            }
        }
    }

    @Test
    void anEmulatorThatExitsFailsTheStartWithItsLogTail(@TempDir Path dir) throws IOException {
        Path real = LocalstackDirectory.locate();
        Path fake = Files.createDirectories(dir.resolve("localstack"));
        Files.copy(real.resolve("package.json"), fake.resolve("package.json"));
        Files.createDirectories(fake.resolve("bin"));
        Files.copy(real.resolve(LocalstackDirectory.WATCHDOG), fake.resolve(LocalstackDirectory.WATCHDOG));
        Path modules = Files.createDirectories(fake.resolve("node_modules"));
        try (var entries = Files.list(real.resolve("node_modules"))) {
            for (Path entry : entries.toList()) {
                if (!entry.getFileName().toString().equals("kinesis-local")) {
                    Files.createSymbolicLink(modules.resolve(entry.getFileName()), entry);
                }
            }
        }
        Files.createDirectories(fake.resolve(LocalstackDirectory.KINESIS_MAIN).getParent());
        Files.writeString(
                fake.resolve(LocalstackDirectory.KINESIS_MAIN),
                "console.error('kinesis-mock refuses to start'); process.exit(3);");
        Files.writeString(fake.resolve(LocalstackDirectory.KINESIS_CERT), "{}");
        Set<Long> childrenBefore = childPids();

        assertThatThrownBy(() -> LocalAws.start(LocalAwsOptions.builder()
                        .localstackDirectory(fake)
                        .logDirectory(dir.resolve("logs"))
                        .build()))
                .isInstanceOf(LocalAwsException.class)
                .hasMessageContaining("kinesis-mock exited with code 3")
                .hasMessageContaining(dir.resolve("logs").toString())
                .hasMessageContaining("kinesis-mock refuses to start");
        // dynalite, which did start, was stopped again
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(childPids()).isSubsetOf(childrenBefore));
    }

    private static Set<Long> childPids() {
        return ProcessHandle.current()
                .children()
                .filter(child -> Processes.isRunning(child.pid()))
                .map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }

    private static void readLines(Process process, List<String> lines) {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line.strip());
            }
        } catch (IOException e) {
            // the process was killed
        }
    }

    private static boolean accepts(URI endpoint) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getByName(endpoint.getHost()), endpoint.getPort()), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
