package dev.sluice.core.stage;

import com.ethlo.time.ITU;
import com.ethlo.time.LeapSecondException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

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
        Instant instant = strict(text);
        return instant != null ? instant : parseWithEthlo(text);
    }

    /** {@link #parse} by ethlo alone: the reading of every text {@link #strict} leaves to it. */
    static Instant parseWithEthlo(String text) {
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

    /**
     * The instant of the common shape, read by hand: {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±hh:mm)},
     * upper-case {@code T} and {@code Z}, a real date, second at most 59, an offset below 18 hours
     * and not {@code -00:00}; {@code null} for anything else (ethlo then decides).
     */
    static Instant strict(String s) {
        int n = s.length();
        if (n < 20
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 2);
        int day = digits(s, 8, 2);
        int hour = digits(s, 11, 2);
        int minute = digits(s, 14, 2);
        int second = digits(s, 17, 2);
        if (year < 0
                || month < 1
                || month > 12
                || day < 1
                || day > daysIn(year, month)
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59) {
            return null;
        }
        int i = 19;
        int nanos = 0;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && i - start < 10 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                nanos = nanos * 10 + (s.charAt(i) - '0');
                i++;
            }
            int fraction = i - start;
            if (fraction < 1 || fraction > 9 || i >= n) {
                return null;
            }
            for (int k = fraction; k < 9; k++) {
                nanos *= 10;
            }
        }
        char zone = s.charAt(i);
        int offset;
        if (zone == 'Z') {
            if (i + 1 != n) {
                return null;
            }
            offset = 0;
        } else if ((zone == '+' || zone == '-') && i + 6 == n && s.charAt(i + 3) == ':') {
            int hours = digits(s, i + 1, 2);
            int minutes = digits(s, i + 4, 2);
            if (hours < 0 || hours > 17 || minutes < 0 || minutes > 59 || (zone == '-' && hours == 0 && minutes == 0)) {
                return null;
            }
            offset = (zone == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
        } else {
            return null;
        }
        long epochDay = LocalDate.of(year, month, day).toEpochDay();
        return Instant.ofEpochSecond(epochDay * 86_400L + hour * 3600 + minute * 60 + second - offset, nanos);
    }

    /** The decimal number of {@code count} ASCII digits at {@code at}, or -1. */
    private static int digits(String s, int at, int count) {
        int value = 0;
        for (int i = at; i < at + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static int daysIn(int year, int month) {
        return switch (month) {
            case 2 -> (year % 4 == 0) && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }
}
