package dev.sluice.emulators;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files that hold credentials (persona profiles, the stack's endpoints with its key): readable and
 * writable by their owner only ({@code rw-------}), created with that permission — never written
 * first and restricted after — and moved into place atomically, so no other user can read them,
 * not even for a moment.
 */
public final class PrivateFiles {

    /** {@code rw-------}. */
    public static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    /** Writes {@code text} (UTF-8) to {@code file}, replacing it, as a file only its owner can read. */
    public static Path write(Path file, String text) throws IOException {
        Path directory = file.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        Path temporary = posix
                ? Files.createTempFile(
                        directory, "." + file.getFileName(), ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY))
                : Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
        try {
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            return Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
