package dev.sluice.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.local.LocalDefinitions;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * What every command shares: the repository root, the output streams and the JSON mapper.
 *
 * @param root the repository root
 * @param out where results go
 * @param err where problems go
 * @param mapper JSON for files the commands read and write
 */
record CliContext(Path root, PrintStream out, PrintStream err, ObjectMapper mapper) {

    /**
     * The most events {@code demo} and {@code faults} produce: the producer's ledger of every event
     * is held in memory to reconcile against, and the local stack drains a few hundred a second.
     */
    static final int MAX_EVENTS = 100_000;

    /** The definitions of this repository, with their handlers checked against the classpath. */
    DefinitionLoader loader() {
        return LocalDefinitions.loader(root);
    }

    /** The local stack of this repository: its emulators and its log directory. */
    LocalAwsOptions options() {
        return LocalAwsOptions.builder()
                .localstackDirectory(root.resolve("localstack"))
                .logDirectory(root.resolve("localstack/.run/logs"))
                .build();
    }
}
