package dev.sluice.cli;

import java.util.Set;

/**
 * One {@code ./sluice} command. The dispatcher ({@link SluiceCli}) parses its options against
 * {@link #options()} and {@link #flags()}, builds the usage text from every command's {@link
 * #usage()}, and turns a {@link UsageException} into exit status 2 and any other {@link
 * dev.sluice.core.SluiceException} or runtime failure into one line and exit status 1.
 */
interface Command {

    /** The word that selects it: {@code ./sluice <name>}. */
    String name();

    /**
     * How a user types it after {@code ./sluice}: its {@link #name()}, unless the launcher maps
     * another form onto it ({@code bench emulators}).
     */
    default String shownAs() {
        return name();
    }

    /** Its lines of the usage text: the synopsis, then what it does. */
    String usage();

    /** The options that take a value ({@code --events 100}). */
    Set<String> options();

    /** The options that take none ({@code --aws}). */
    default Set<String> flags() {
        return Set.of();
    }

    /** Runs it; the exit status. */
    int run(Arguments args) throws Exception;
}
