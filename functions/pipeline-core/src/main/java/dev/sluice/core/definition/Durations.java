package dev.sluice.core.definition;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as definitions write them: {@code 30s}, {@code 1m}, {@code 5m}, {@code 1h}, {@code 1d}, or ISO-8601 {@code PT1M}. */
public final class Durations {

    private static final Pattern SHORT = Pattern.compile("([0-9]+)(ms|s|m|h|d)");

    private Durations() {}

    /**
     * Parses a duration.
     *
     * @throws IllegalArgumentException with a message saying what is accepted
     */
    public static Duration parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("a duration is required, e.g. 1m, 5m, 1h, 1d or PT1M");
        }
        Matcher m = SHORT.matcher(text.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a duration: write e.g. 30s, 1m, 5m, 1h, 1d or PT1M");
        }
    }
}
