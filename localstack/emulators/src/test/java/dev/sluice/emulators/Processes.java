package dev.sluice.emulators;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Test helper: whether a process is really running. */
final class Processes {

    private Processes() {}

    /**
     * Whether the process runs. A zombie counts as gone: orphans are re-parented to an init that
     * may never reap them, and {@link ProcessHandle#isAlive()} reports zombies as alive.
     */
    static boolean isRunning(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return handle.get().isAlive();
        }
        try {
            String text = Files.readString(stat);
            char state = text.substring(text.lastIndexOf(')') + 1).strip().charAt(0);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false; // it vanished while we looked
        }
    }
}
