package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.emulators.PrivateFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files that hold secret keys are readable and writable by their owner only. */
class PersonaProfilesFileTest {

    @Test
    void aCredentialsFileIsCreatedOwnerOnlyAndReplacedOwnerOnly(@TempDir Path directory) throws Exception {
        Path file = directory.resolve("aws").resolve("credentials");
        PrivateFiles.write(file, "[p]\naws_secret_access_key = one\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        // an existing file with wider permissions is replaced by an owner-only one
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        PrivateFiles.write(file, "[p]\naws_secret_access_key = two\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(Files.readString(file)).contains("two");
        try (var left = Files.list(file.getParent())) {
            assertThat(left).containsExactly(file);
        }
    }
}
