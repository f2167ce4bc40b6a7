package dev.sluice.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Optional;

/**
 * The lock of {@code ./sluice up}: a file holding the running instance's process id and start time.
 * A second {@code up} finds it and refuses; a lock left by an instance that died (its process is gone,
 * or the id now belongs to a process started at another time) is taken over.
 */
final class RunLock implements AutoCloseable {

    /** Thrown when another live instance holds the lock. */
    static final class HeldException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HeldException(String message) {
            super(message);
        }
    }

    private final Path file;
    private final String content;

    private RunLock(Path file, String content) {
        this.file = file;
        this.content = content;
    }

    /**
     * Takes the lock for this process.
     *
     * @param shownAs the lock file as the message shows it
     * @throws HeldException if a live process holds it
     */
    static RunLock acquire(Path file, String shownAs) {
        ProcessHandle self = ProcessHandle.current();
        String content = "pid=" + self.pid() + "\nstarted="
                + self.info().startInstant().map(Instant::toString).orElse("") + "\n";
        try {
            Files.createDirectories(file.getParent());
            for (int attempt = 0; ; attempt++) {
                try {
                    Files.writeString(file, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
                    return new RunLock(file, content);
                } catch (FileAlreadyExistsException e) {
                    Optional<Holder> holder = holder(file);
                    if (holder.isPresent() && holder.get().alive() && attempt < 3) {
                        Holder h = holder.get();
                        throw new HeldException("another './sluice up' is running (pid " + h.pid
                                + (h.started.isEmpty() ? "" : ", started " + h.started) + "; lock " + shownAs
                                + "): stop it first (Ctrl-C in its terminal, or kill " + h.pid + ")");
                    }
                    if (attempt >= 3) {
                        throw new HeldException("cannot take the lock " + shownAs + ": it keeps reappearing");
                    }
                    // a stale lock: its process is gone
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot take the lock " + shownAs + ": " + e.getMessage(), e);
        }
    }

    /** Who holds a lock file; empty if it vanished or cannot be read as a lock. */
    private static Optional<Holder> holder(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        long pid = -1;
        String started = "";
        for (String line : text.split("\n")) {
            if (line.startsWith("pid=")) {
                try {
                    pid = Long.parseLong(line.substring(4).trim());
                } catch (NumberFormatException e) {
                    pid = -1;
                }
            } else if (line.startsWith("started=")) {
                started = line.substring(8).trim();
            }
        }
        return pid > 0 ? Optional.of(new Holder(pid, started)) : Optional.empty();
    }

    private record Holder(long pid, String started) {
        /** The process runs, and is the one that wrote the lock (not a later process given the same id). */
        boolean alive() {
            return ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(p -> started.isEmpty()
                            || p.info()
                                    .startInstant()
                                    .map(s -> s.toString().equals(started))
                                    .orElse(true))
                    .isPresent();
        }
    }

    /** Releases the lock if this process still holds it. */
    @Override
    public void close() {
        try {
            if (Files.exists(file)
                    && Files.readString(file, StandardCharsets.UTF_8).equals(content)) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // the next up finds a lock whose process is gone and takes it over
        }
    }
}
