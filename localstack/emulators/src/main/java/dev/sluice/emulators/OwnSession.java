package dev.sluice.emulators;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Starts a child process in its own session ({@code setsid}, when this machine has it). Linux's
 * autogroup scheduler ({@code /proc/sys/kernel/sched_autogroup_enabled}) shares the CPU first between
 * sessions, then between the threads of one session. In the launcher's session every emulator and
 * every KCL worker competed thread by thread for that one session's share, so that KCL worker JVMs
 * being started took the CPU from the running workers and from the emulators that stand for AWS
 * services (docs/exactly-once.md, section 10). In its own session each has its own share, as an AWS
 * service and an ECS task do not take CPU from one another. {@code setsid} execs the program (the
 * child is not a process-group leader), so the child's pid is the program's and signals reach it;
 * without autogroup it changes nothing.
 */
public final class OwnSession {

    private static final Optional<Path> SETSID = Stream.of("/usr/bin/setsid", "/bin/setsid")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst();

    private OwnSession() {}

    /** The words to put before a command so that it runs in its own session (none without {@code setsid}). */
    public static List<String> prefix() {
        return SETSID.map(setsid -> List.of(setsid.toString())).orElse(List.of());
    }
}
