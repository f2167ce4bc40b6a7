package dev.sluice.core.stage;

import com.ethlo.time.ITU;
import com.ethlo.time.LeapSecondException;
import java.time.DateTimeException;
import java.time.Instant;

/**
 * RFC 3339 event times: a date, a time and an offset ({@code 2026-11-30T18:42:07.125+01:00}).
 *
 * <p>Leap seconds: a time with second {@code 60} is accepted exactly when the schema's {@code
 * date-time} format accepts it — networknt (through ethlo) accepts a leap second only where one was
 * really inserted ({@code 2016-12-31T23:59:60Z}, or the same instant at another offset), and the
 * fast validator hands every {@code :60} to networknt. Such a time is read as the last second of its
 * minute with the same fraction ({@code 23:59:60.5Z} is the instant {@code 23:59:59.5Z}), as
 * {@link Instant#parse} does: the event stays in its UTC day, hour and minute, so its lake partition
 * and its window are those of the minute the producer wrote.
 */
public final class Timestamps {

    private Timestamps() {}

    /** The instant, or {@code null} if the text is not an RFC 3339 date-time with an offset. */
    public static Instant parse(String text) {
        try {
            return ITU.parseDateTime(text).toInstant();
        } catch (LeapSecondException e) {
            // the nearest date-time is the second after the leap second, with the same fraction
            return e.isVerifiedValidLeapYearMonth()
                    ? e.getNearestDateTime().toInstant().minusSeconds(1)
                    : null;
        } catch (DateTimeException | IllegalArgumentException e) {
            return null;
        }
    }
}
