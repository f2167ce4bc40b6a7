package dev.sluice.emulators;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the repository's {@code localstack/} directory, which holds {@code package.json}, the
 * installed Node emulators in {@code node_modules/} and the watchdog {@code bin/with-parent.js}.
 *
 * <p>The system property {@value #ROOT_PROPERTY} (the repository root, set by Surefire and
 * Failsafe) wins when it points at a repository with {@code localstack/package.json}; otherwise the
 * working directory and its parents are searched.
 */
public final class LocalstackDirectory {

    /** The system property naming the repository root. */
    public static final String ROOT_PROPERTY = "sluice.root";

    /** The message given when the Node emulators are not installed. */
    public static final String MISSING_NODE_MODULES =
            "localstack/node_modules is missing: run `npm ci` in localstack/ (./sluice does it for you)";

    /** The kinesis-mock entry point, relative to the localstack directory. */
    static final Path KINESIS_MAIN = Path.of("node_modules", "kinesis-local", "main.js");

    /** kinesis-mock's self-signed certificate, relative to the localstack directory. */
    static final Path KINESIS_CERT = Path.of("node_modules", "kinesis-local", "server.json");

    /** The dynalite entry point, relative to the localstack directory. */
    static final Path DYNALITE_CLI = Path.of("node_modules", "dynalite", "cli.js");

    /** The watchdog that ends a Node emulator when the JVM is gone. */
    static final Path WATCHDOG = Path.of("bin", "with-parent.js");

    private static final String DIRECTORY_NAME = "localstack";
    private static final String PACKAGE_JSON = "package.json";

    private LocalstackDirectory() {}

    /**
     * The localstack directory for this JVM, from {@value #ROOT_PROPERTY} or the working directory.
     *
     * @throws LocalAwsException if neither leads to a {@code localstack/package.json}
     */
    public static Path locate() {
        return locate(System.getProperty(ROOT_PROPERTY), Path.of(System.getProperty("user.dir")));
    }

    /**
     * The localstack directory given a repository root (may be {@code null}) and a working
     * directory to search upwards from.
     *
     * @throws LocalAwsException if neither leads to a {@code localstack/package.json}
     */
    public static Path locate(String sluiceRoot, Path workingDirectory) {
        if (sluiceRoot != null && !sluiceRoot.isBlank()) {
            Path candidate = Path.of(sluiceRoot).resolve(DIRECTORY_NAME);
            if (isLocalstack(candidate)) {
                return candidate.toAbsolutePath().normalize();
            }
        }
        return searchUpwards(workingDirectory)
                .orElseThrow(() -> new LocalAwsException("cannot find localstack/package.json: set -D" + ROOT_PROPERTY
                        + "=<repository root> or run from inside the repository (searched upwards from "
                        + workingDirectory.toAbsolutePath() + (sluiceRoot == null ? "" : " and " + sluiceRoot)
                        + ")"));
    }

    /**
     * Checks that the Node emulators and the watchdog are installed in the localstack directory.
     *
     * @return the directory
     * @throws LocalAwsException with {@link #MISSING_NODE_MODULES} if {@code node_modules} or one of
     *     the emulators in it is missing
     */
    public static Path requireInstalled(Path localstackDirectory) {
        if (!Files.isDirectory(localstackDirectory.resolve("node_modules"))) {
            throw new LocalAwsException(MISSING_NODE_MODULES);
        }
        for (Path required : new Path[] {KINESIS_MAIN, KINESIS_CERT, DYNALITE_CLI}) {
            if (!Files.isRegularFile(localstackDirectory.resolve(required))) {
                throw new LocalAwsException(
                        MISSING_NODE_MODULES + " (no " + localstackDirectory.resolve(required) + ")");
            }
        }
        Path watchdog = localstackDirectory.resolve(WATCHDOG);
        if (!Files.isRegularFile(watchdog)) {
            throw new LocalAwsException("the Node watchdog " + watchdog + " is missing");
        }
        return localstackDirectory;
    }

    private static Optional<Path> searchUpwards(Path start) {
        for (Path dir = start.toAbsolutePath().normalize(); dir != null; dir = dir.getParent()) {
            Path child = dir.resolve(DIRECTORY_NAME);
            if (isLocalstack(child)) {
                return Optional.of(child);
            }
            if (dir.getFileName() != null && dir.getFileName().toString().equals(DIRECTORY_NAME) && isLocalstack(dir)) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static boolean isLocalstack(Path dir) {
        return Files.isRegularFile(dir.resolve(PACKAGE_JSON));
    }
}
