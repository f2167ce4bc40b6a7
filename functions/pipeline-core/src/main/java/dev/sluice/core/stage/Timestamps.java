package dev.sluice.core.stage;

import com.ethlo.time.ITU;
import java.time.DateTimeException;
import java.time.Instant;

/** RFC 3339 event times: a date, a time and an offset ({@code 2026-11-30T18:42:07.125+01:00}). */
final class Timestamps {

    private Timestamps() {}

    /** The instant, or {@code null} if the text is not an RFC 3339 date-time with an offset. */
    static Instant parse(String text) {
        try {
            return ITU.parseDateTime(text).toInstant();
        } catch (DateTimeException | IllegalArgumentException e) {
            return null;
        }
    }
}
