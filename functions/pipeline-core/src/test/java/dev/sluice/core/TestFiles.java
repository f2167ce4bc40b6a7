package dev.sluice.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.StageServices;
import dev.sluice.core.testing.Stages;
import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's real schemas/ and pipelines/ folders, for tests. */
public final class TestFiles {

    public static final ObjectMapper MAPPER = new ObjectMapper();

    private TestFiles() {}

    /** The repository root: the {@code sluice.root} property Maven sets, else found from here. */
    public static Path root() {
        String property = System.getProperty("sluice.root");
        if (property != null) {
            return Path.of(property);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("pipelines")) && Files.isDirectory(dir.resolve("schemas"))) {
                return dir;
            }
        }
        throw new IllegalStateException("cannot find the repository root");
    }

    public static SchemaCatalog schemas() {
        return SchemaCatalog.fromDirectory(root().resolve("schemas"), MAPPER);
    }

    /** A fixed 32-byte tokenization key, for tests only. */
    public static final SecretProvider SECRETS = Stages.SECRETS;

    /** Services with the repository's schemas, a fixed clock and the test key. */
    public static StageServices services(java.time.Clock clock) {
        return new StageServices(schemas(), MAPPER, clock, SECRETS, java.util.Map.of());
    }

    public static DefinitionLoader loader() {
        return new DefinitionLoader(schemas());
    }
}
