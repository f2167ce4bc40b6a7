package dev.sluice.load;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code ./sluice load} runs.
 *
 * @param definition the pipeline definition file
 * @param rate target events per second
 * @param duration how long to produce
 * @param aws against a deployed stack (default credentials chain and region) instead of the local one
 * @param stream the stream's physical name with {@code aws} ({@code null}: the definition's name)
 * @param seed the generator's seed
 * @param invalidShare share of invalid events produced on purpose
 * @param reports the directory under which {@code <timestamp>/report.*} is written
 * @param day compress one day into the duration: the rate follows the {@code DailyCurve} (quiet
 *     night, evening peak at about 2.3 × {@code rate}), {@code rate} being the day's average
 */
public record LoadSettings(
        Path definition,
        double rate,
        Duration duration,
        boolean aws,
        String stream,
        long seed,
        double invalidShare,
        Path reports,
        boolean day) {}
