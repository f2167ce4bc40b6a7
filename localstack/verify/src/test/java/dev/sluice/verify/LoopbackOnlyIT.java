package dev.sluice.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.kcl.KclTimings;
import dev.sluice.local.kcl.LocalKclWorker;
import dev.sluice.verify.reconcile.KclViewsRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Nothing of the local stack listens beyond loopback: with the emulators (kinesis-mock, dynalite,
 * s3proxy, ElasticMQ) and a local KCL worker running, every listening TCP socket owned by this JVM or
 * one of its descendants is bound to 127.0.0.1, read from {@code /proc/net/tcp} and {@code tcp6}.
 */
@ExtendWith(LocalAwsExtension.class)
class LoopbackOnlyIT {

    static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    /** A listening socket: its owner and its local address as {@code /proc/net/tcp*} shows it. */
    record Listener(long pid, String command, String address, int port) {
        boolean loopback() {
            // 127.0.0.1 in /proc/net/tcp (little-endian hex), or as an IPv4-mapped IPv6 address in tcp6
            return address.equals("0100007F") || address.equals("0000000000000000FFFF00000100007F");
        }

        @Override
        public String toString() {
            return "pid " + pid + " (" + command + ") listening on " + address + ":" + port;
        }
    }

    @Test
    void everyListeningPortOfTheStackAndItsKclWorkerIsOnLoopback(LocalAws aws, ResourceNames names) {
        try (KclViewsRun run = KclViewsRun.provision(aws, names, ROOT, false, KclTimings.LOCAL)) {
            LocalKclWorker worker = run.workers().startWorker();
            await("the KCL worker's HTTP port listens")
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> listeners().stream().anyMatch(l -> l.pid() == worker.pid()));

            List<Listener> listeners = listeners();

            Set<Long> owners = listeners.stream().map(Listener::pid).collect(Collectors.toSet());
            assertThat(owners)
                    .as("the JVM (s3proxy, ElasticMQ), the Node emulators and the worker all listen: %s", listeners)
                    .contains(ProcessHandle.current().pid(), worker.pid())
                    .hasSizeGreaterThanOrEqualTo(4);
            assertThat(listeners)
                    .as("listening sockets of the local stack")
                    .allSatisfy(l -> assertThat(l.loopback()).as(l.toString()).isTrue());
        }
    }

    /** Every listening TCP socket of this JVM and its descendants. */
    static List<Listener> listeners() {
        Map<Long, Long> ownerByInode = new HashMap<>();
        Map<Long, String> commands = new HashMap<>();
        List<ProcessHandle> processes = new ArrayList<>();
        processes.add(ProcessHandle.current());
        ProcessHandle.current().descendants().forEach(processes::add);
        for (ProcessHandle process : processes) {
            commands.put(process.pid(), process.info().command().orElse("?"));
            try (DirectoryStream<Path> fds =
                    Files.newDirectoryStream(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
                for (Path fd : fds) {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            ownerByInode.put(Long.parseLong(target.substring(8, target.length() - 1)), process.pid());
                        }
                    } catch (IOException e) {
                        // the descriptor was closed meanwhile
                    }
                }
            } catch (IOException e) {
                // the process ended meanwhile
            }
        }
        List<Listener> listeners = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try (Stream<String> lines = Files.lines(Path.of(table))) {
                lines.skip(1).forEach(line -> {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                    if (f.length > 9 && f[3].equals("0A")) {
                        Long owner = ownerByInode.get(Long.parseLong(f[9]));
                        if (owner != null) {
                            String[] local = f[1].split(":");
                            listeners.add(
                                    new Listener(owner, commands.get(owner), local[0], Integer.parseInt(local[1], 16)));
                        }
                    }
                });
            } catch (IOException e) {
                if (!table.endsWith("6")) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return listeners;
    }

    @Test
    void theHelperSeesASocketListeningOnAllInterfaces() throws IOException {
        // the check itself is no tautology: a socket bound to every interface is found and refused
        try (java.net.ServerSocket open = new java.net.ServerSocket(0)) {
            List<Listener> mine = listeners().stream()
                    .filter(l -> l.port() == open.getLocalPort())
                    .toList();

            assertThat(mine).hasSize(1);
            assertThat(mine.get(0).loopback()).isFalse();
        }
    }
}
