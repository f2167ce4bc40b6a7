package dev.sluice.emulators;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The local provider of the template's Secrets Manager secrets: files in a folder only the user can
 * read, created on first use with fresh random keys (in AWS, Secrets Manager generates them at
 * deployment). A key is stable across local runs, so tokens stay joinable between them; delete its
 * file to rotate it.
 */
public final class LocalSecrets {

    private LocalSecrets() {}

    /**
     * The secrets folder under {@code runDirectory} (or a temporary one), with a file for every named
     * secret (the template's secrets, by the names their {@code mask} steps use).
     */
    public static Path ensure(Path runDirectory, java.util.Collection<String> secrets) {
        try {
            Path folder = runDirectory == null
                    ? Files.createTempDirectory("sluice-secrets")
                    : Files.createDirectories(runDirectory.resolve("secrets"));
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
            for (String name : secrets) {
                Path file = folder.resolve(name);
                if (!Files.exists(file)) {
                    byte[] key = new byte[32];
                    new SecureRandom().nextBytes(key);
                    Path temporary = Files.createTempFile(folder, name, ".tmp");
                    Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-------"));
                    Files.writeString(temporary, Base64.getEncoder().encodeToString(key));
                    Files.move(temporary, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
            }
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare local secrets", e);
        }
    }
}
