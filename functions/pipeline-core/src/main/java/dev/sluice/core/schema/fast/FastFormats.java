package dev.sluice.core.schema.fast;

import com.networknt.org.apache.commons.validator.routines.DomainValidator;
import com.networknt.schema.Format;
import com.networknt.schema.Formats;
import java.util.Arrays;
import java.util.Optional;

/**
 * The {@code format} assertions networknt 1.5.9 makes, with exactly its verdicts.
 *
 * <p>Each format is decided in one of two ways:
 *
 * <ul>
 *   <li>{@code ipv4} and {@code uuid} are plain regular expressions in networknt ({@code PatternFormat}, full match);
 *       they are re-implemented exactly here, both ways.
 *   <li>{@code date-time}, {@code date}, {@code email} and {@code ipv6} use a <em>fast accept</em>: a strict,
 *       allocation-free recogniser of the common well-formed shape that is a proven subset of what networknt accepts
 *       (RFC 3339 with an upper-case {@code T}/{@code Z} and offsets networknt's java.time accepts; a dot-atom local
 *       part and an LDH domain whose top-level label is one networknt's own TLD list accepts; hex-group IPv6). A
 *       string outside that shape is handed to networknt's own {@link Format} instance from {@link
 *       Formats#DEFAULT} — the same object the 2020-12 dialect uses — so rejections, leap seconds, odd separators and
 *       other corner cases get networknt's answer by construction.
 * </ul>
 */
final class FastFormats {

    private FastFormats() {}

    /** The check for a format name, or empty when the fast path does not support that format. */
    static Optional<FormatCheck> forName(String name) {
        switch (name) {
            case "date-time":
                return Optional.of(new FormatCheck(DATE_TIME, reference(name)));
            case "date":
                return Optional.of(new FormatCheck(DATE, reference(name)));
            case "email":
                return Optional.of(new FormatCheck(EMAIL, reference(name)));
            case "ipv6":
                return Optional.of(new FormatCheck(IPV6, reference(name)));
            case "ipv4":
                return Optional.of(new FormatCheck(IPV4, null));
            case "uuid":
                return Optional.of(new FormatCheck(UUID, null));
            default:
                return Optional.empty();
        }
    }

    private static final int DATE_TIME = 0;
    private static final int DATE = 1;
    private static final int EMAIL = 2;
    private static final int IPV6 = 3;
    private static final int IPV4 = 4;
    private static final int UUID = 5;

    /** One format assertion: the fast recogniser, then (where there is one) networknt's own implementation. */
    static final class FormatCheck {
        private final int kind;
        private final Format reference; // null: the fast check is exact

        private FormatCheck(int kind, Format reference) {
            this.kind = kind;
            this.reference = reference;
        }

        boolean test(String s) {
            switch (kind) {
                case DATE_TIME:
                    return isDateTime(s) || reference.matches(null, s);
                case DATE:
                    return isDate(s) || reference.matches(null, s);
                case EMAIL:
                    return isEmail(s) || reference.matches(null, s);
                case IPV6:
                    return isIpv6(s) || reference.matches(null, s);
                case IPV4:
                    return isIpv4(s);
                default:
                    return isUuid(s);
            }
        }
    }

    /** networknt's own implementation of a format, as the 2020-12 dialect registers it. */
    static Format reference(String name) {
        for (Format format : Formats.DEFAULT) {
            if (format.getName().equals(name)) {
                return format;
            }
        }
        throw new IllegalStateException("networknt has no format '" + name + "'");
    }

    // ---------------------------------------------------------------- date-time, date

    /**
     * {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}](Z|±hh:mm)} with a real calendar date, hour ≤ 23, minute and second ≤ 59,
     * and an offset java.time accepts (|offset| ≤ 17:59 or exactly 18:00, not {@code -00:00}). Every such string is
     * accepted by networknt (ethlo ITU, or java.time's ISO offset parser when ethlo is absent).
     */
    static boolean isDateTime(String s) {
        int n = s.length();
        if (n < 20 || !isDate(s, 0) || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return false;
        }
        int hour = twoDigits(s, 11);
        int minute = twoDigits(s, 14);
        int second = twoDigits(s, 17);
        if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return false;
        }
        int i = 19;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            int digits = i - start;
            if (digits < 1 || digits > 9 || i >= n) {
                return false;
            }
        }
        char zone = s.charAt(i);
        if (zone == 'Z') {
            return i + 1 == n;
        }
        if ((zone != '+' && zone != '-') || i + 6 != n || s.charAt(i + 3) != ':') {
            return false;
        }
        int offsetHours = twoDigits(s, i + 1);
        int offsetMinutes = twoDigits(s, i + 4);
        if (offsetHours < 0 || offsetMinutes < 0 || offsetMinutes > 59) {
            return false;
        }
        if (zone == '-' && offsetHours == 0 && offsetMinutes == 0) {
            return false; // "unknown local offset", rejected by ethlo
        }
        return offsetHours < 18 || (offsetHours == 18 && offsetMinutes == 0);
    }

    /** {@code yyyy-MM-dd}, a real ISO (proleptic Gregorian) date; years 0000–9999 as networknt allows. */
    static boolean isDate(String s) {
        return s.length() == 10 && isDate(s, 0);
    }

    private static boolean isDate(String s, int at) {
        int year = fourDigits(s, at);
        if (year < 0 || s.charAt(at + 4) != '-' || s.charAt(at + 7) != '-') {
            return false;
        }
        int month = twoDigits(s, at + 5);
        int day = twoDigits(s, at + 8);
        return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
    }

    private static int daysIn(int year, int month) {
        switch (month) {
            case 2:
                boolean leap = (year % 4 == 0) && (year % 100 != 0 || year % 400 == 0);
                return leap ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    private static int twoDigits(String s, int at) {
        char a = s.charAt(at);
        char b = s.charAt(at + 1);
        if (a < '0' || a > '9' || b < '0' || b > '9') {
            return -1;
        }
        return (a - '0') * 10 + (b - '0');
    }

    private static int fourDigits(String s, int at) {
        int hi = twoDigits(s, at);
        int lo = twoDigits(s, at + 2);
        return hi < 0 || lo < 0 ? -1 : hi * 100 + lo;
    }

    // ---------------------------------------------------------------- email

    /**
     * Top-level domains the fast path recognises: the entries of networknt's own TLD tables (its copy of Apache Commons
     * Validator's {@code DomainValidator}) that are all letters, at most 9 of them, and that the very {@code
     * DomainValidator} networknt's e-mail format consults ({@code getInstance(allowLocal = true)}) accepts as a TLD —
     * so the table is a subset of what networknt accepts, whatever overrides it has. Built on first use; any other TLD
     * goes to networknt.
     */
    private static final class Tlds {
        static final long[] KEYS = build();

        private static long[] build() {
            DomainValidator domains = DomainValidator.getInstance(true);
            return Arrays.stream(new DomainValidator.ArrayType[] {
                        DomainValidator.ArrayType.GENERIC_RO,
                        DomainValidator.ArrayType.COUNTRY_CODE_RO,
                        DomainValidator.ArrayType.INFRASTRUCTURE_RO,
                        DomainValidator.ArrayType.LOCAL_RO,
                        DomainValidator.ArrayType.GENERIC_PLUS,
                        DomainValidator.ArrayType.COUNTRY_CODE_PLUS,
                        DomainValidator.ArrayType.LOCAL_PLUS
                    })
                    .flatMap(table -> Arrays.stream(DomainValidator.getTLDEntries(table)))
                    .filter(tld -> tldKey(tld, 0, tld.length()) >= 0 && domains.isValidTld(tld))
                    .mapToLong(tld -> tldKey(tld, 0, tld.length()))
                    .sorted()
                    .distinct()
                    .toArray();
        }
    }

    /** A label of up to 9 ASCII letters, lower-cased and packed 7 bits a character; -1 for anything else. */
    private static long tldKey(String s, int from, int to) {
        if (to - from > 9) {
            return -1;
        }
        long key = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            } else if (c < 'a' || c > 'z') {
                return -1;
            }
            key = (key << 7) | c;
        }
        return key;
    }

    /**
     * A dot-atom local part of at most 64 RFC 5322 {@code atext} characters, one {@code @}, and a domain of at least
     * two LDH labels (1–63 characters, no leading or trailing hyphen, at most 253 characters in all) whose last label
     * is one of {@link Tlds} (any letter case). Every such address passes networknt's e-mail check (Apache Commons Validator's user
     * regex, its domain regex and its TLD list).
     */
    static boolean isEmail(String s) {
        int n = s.length();
        int at = s.indexOf('@');
        if (at < 1 || at > 64 || n - at - 1 > 253 || n - at - 1 < 3) {
            return false;
        }
        // local part: dot-atom
        char previous = '.';
        for (int i = 0; i < at; i++) {
            char c = s.charAt(i);
            if (c == '.') {
                if (previous == '.') {
                    return false; // leading dot or ".."
                }
            } else if (!isAtext(c)) {
                return false;
            }
            previous = c;
        }
        if (previous == '.') {
            return false;
        }
        // domain: LDH labels
        int labels = 0;
        int labelStart = at + 1;
        for (int i = at + 1; i <= n; i++) {
            char c = i < n ? s.charAt(i) : '.';
            if (c == '.') {
                int length = i - labelStart;
                if (length < 1 || length > 63 || s.charAt(labelStart) == '-' || s.charAt(i - 1) == '-') {
                    return false;
                }
                labels++;
                if (i == n) {
                    return labels >= 2 && isKnownTld(s, labelStart, n);
                }
                labelStart = i + 1;
            } else if (!isLetterOrDigit(c) && c != '-') {
                return false;
            }
        }
        return false;
    }

    private static boolean isKnownTld(String s, int from, int to) {
        long key = tldKey(s, from, to);
        return key >= 0 && Arrays.binarySearch(Tlds.KEYS, key) >= 0;
    }

    private static final long[] ALNUM = mask("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    private static final long[] ATEXT =
            mask("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&'*+/=?^_`{|}~-");

    private static long[] mask(String chars) {
        long[] mask = new long[2];
        for (char c : chars.toCharArray()) {
            mask[c >> 6] |= 1L << (c & 63);
        }
        return mask;
    }

    private static boolean in(long[] mask, char c) {
        return c < 128 && (mask[c >> 6] & (1L << (c & 63))) != 0;
    }

    private static boolean isLetterOrDigit(char c) {
        return in(ALNUM, c);
    }

    private static boolean isAtext(char c) {
        return in(ATEXT, c);
    }

    // ---------------------------------------------------------------- ip addresses, uuid

    /**
     * Exactly networknt's {@code ipv4} pattern (full match): four dot-separated decimal octets 0–255 without leading
     * zeros.
     */
    static boolean isIpv4(String s) {
        int n = s.length();
        int i = 0;
        for (int octet = 0; octet < 4; octet++) {
            if (octet > 0) {
                if (i >= n || s.charAt(i) != '.') {
                    return false;
                }
                i++;
            }
            int start = i;
            int value = 0;
            while (i < n && i - start < 4 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return false;
            }
        }
        return i == n;
    }

    /**
     * Hex-group IPv6 without an embedded IPv4 part or zone: eight groups of 1–4 hex digits, or fewer around a single
     * {@code ::}. A subset of networknt's {@code ipv6} pattern.
     */
    static boolean isIpv6(String s) {
        int n = s.length();
        if (n < 2 || n > 39) {
            return false;
        }
        int groups = 0;
        boolean compressed = false;
        int i = 0;
        if (s.charAt(0) == ':') {
            if (s.charAt(1) != ':') {
                return false;
            }
            compressed = true;
            i = 2;
            if (i == n) {
                return true; // "::"
            }
        }
        while (true) {
            int start = i;
            while (i < n && i - start < 5 && isHex(s.charAt(i))) {
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 4) {
                return false;
            }
            groups++;
            if (i == n) {
                break;
            }
            if (s.charAt(i) != ':') {
                return false;
            }
            i++;
            if (i < n && s.charAt(i) == ':') {
                if (compressed) {
                    return false;
                }
                compressed = true;
                i++;
                if (i == n) {
                    break; // trailing "::"
                }
            } else if (i == n) {
                return false; // trailing single ':'
            }
        }
        return compressed ? groups <= 7 : groups == 8;
    }

    /** Exactly networknt's {@code uuid} pattern (full match): 8-4-4-4-12 hex digits, either case. */
    static boolean isUuid(String s) {
        if (s.length() != 36) {
            return false;
        }
        for (int i = 0; i < 36; i++) {
            char c = s.charAt(i);
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    return false;
                }
            } else if (!isHex(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
