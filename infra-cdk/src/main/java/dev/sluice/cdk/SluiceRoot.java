package dev.sluice.cdk;

import java.nio.file.Files;
import java.nio.file.Path;

/** Finds the repository root: the folder that holds {@code pipelines/} and {@code schemas/}. */
public final class SluiceRoot {

    /** The system property Maven sets to the repository root. */
    public static final String PROPERTY = "sluice.root";

    private SluiceRoot() {}

    /**
     * The {@value #PROPERTY} system property if set, else the nearest folder holding {@code
     * pipelines/}, walking up from the working directory.
     */
    public static Path locate() {
        String property = System.getProperty(PROPERTY);
        if (property != null && !property.isBlank()) {
            Path root = Path.of(property).toAbsolutePath().normalize();
            if (!Files.isDirectory(root.resolve("pipelines"))) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + property
                        + " has no pipelines/ folder: point it at the repository root");
            }
            return root;
        }
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("pipelines"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no pipelines/ folder in " + start
                + " or above it: run from the repository, or set -D" + PROPERTY + "=<repository root>");
    }
}
