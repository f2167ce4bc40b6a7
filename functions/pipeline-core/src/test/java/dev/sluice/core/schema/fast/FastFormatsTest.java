package dev.sluice.core.schema.fast;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Format;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Differential fuzzing of each format against networknt's own implementation: seeds near the format's boundaries,
 * each mutated many times (characters inserted, deleted, replaced, digits bumped). The fast predicate must give
 * networknt's verdict, and its allocation-free recogniser must never accept what networknt rejects.
 */
class FastFormatsTest {

    private static final String NOISE = "0123456789:-.+TZtz @_[]%xyzABCabcfFgG\n\u2028é😀";

    @ParameterizedTest
    @ValueSource(strings = {"date-time", "date", "email", "ipv4", "ipv6", "uuid"})
    void fuzzedStringsGetNetworkntsVerdict(String name) {
        Format reference = FastFormats.reference(name);
        FastFormats.FormatCheck fast = FastFormats.forName(name).orElseThrow();
        Predicate<String> accept = fastAccept(name);
        Random random = new Random(name.hashCode());
        List<String> disagreements = new ArrayList<>();
        int accepted = 0;
        int checked = 0;
        for (String seed : seeds(name)) {
            for (int i = 0; i < 2000; i++) {
                String candidate = i == 0 ? seed : mutate(seed, random);
                boolean expected = reference.matches(null, candidate);
                checked++;
                if (fast.test(candidate) != expected || (accept.test(candidate) && !expected)) {
                    disagreements.add(candidate);
                }
                if (expected) {
                    accepted++;
                }
            }
        }
        System.out.printf(
                "format %s: %d fuzzed strings, %d valid, %d disagreements%n",
                name, checked, accepted, disagreements.size());

        assertThat(disagreements).isEmpty();
        assertThat(accepted).isPositive();
    }

    @Test
    void theFastRecognisersTakeTheCommonShapes() {
        assertThat(FastFormats.isDateTime("2026-11-30T18:42:07.125+01:00")).isTrue();
        assertThat(FastFormats.isDateTime("2026-11-30T18:42:07Z")).isTrue();
        assertThat(FastFormats.isEmail("j.devries@example.nl")).isTrue();
        assertThat(FastFormats.isEmail("m.vos@example.nl")).isTrue();
        assertThat(FastFormats.isIpv6("2001:db8::1")).isTrue();
        assertThat(FastFormats.isDate("2024-02-29")).isTrue();
        // left to networknt, which decides these
        assertThat(FastFormats.isDateTime("2016-12-31T23:59:60Z")).isFalse();
        assertThat(FastFormats.isEmail("a@aa.example")).isFalse();
    }

    private static Predicate<String> fastAccept(String name) {
        switch (name) {
            case "date-time":
                return FastFormats::isDateTime;
            case "date":
                return FastFormats::isDate;
            case "email":
                return FastFormats::isEmail;
            case "ipv6":
                return FastFormats::isIpv6;
            case "ipv4":
                return FastFormats::isIpv4;
            default:
                return FastFormats::isUuid;
        }
    }

    private static List<String> seeds(String name) {
        switch (name) {
            case "date-time":
                return List.of(
                        "2026-11-30T18:42:07.125+01:00",
                        "2024-02-29T23:59:59Z",
                        "2016-12-31T23:59:60Z",
                        "0000-01-01T00:00:00.000000001-17:59",
                        "1999-12-31T00:00:00+18:00");
            case "date":
                return List.of("2026-11-30", "2024-02-29", "0000-01-01", "9999-12-31");
            case "email":
                return List.of(
                        "j.devries@example.nl",
                        "first.last+tag@sub.example.co.uk",
                        "a@b.io",
                        "o'brien@example.ie",
                        "a!#$%&'*+/=?^_`{|}~-@example.org",
                        "x@a-b.c-d.com");
            case "ipv4":
                return List.of("203.0.113.42", "0.0.0.0", "255.255.255.255", "10.1.100.250");
            case "ipv6":
                return List.of("2001:db8::1", "::1", "::", "1:2:3:4:5:6:7:8", "fe80::1:2", "1::", "::ffff:192.0.2.1");
            default:
                return List.of("3fa85f64-5717-4562-b3fc-2c963f66afa6", "3FA85F64-5717-4562-B3FC-2C963F66AFA6");
        }
    }

    private static String mutate(String seed, Random random) {
        StringBuilder b = new StringBuilder(seed);
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++) {
            int at = random.nextInt(b.length() + 1);
            switch (random.nextInt(4)) {
                case 0 -> b.insert(at, noise(random));
                case 1 -> {
                    if (at < b.length()) {
                        b.deleteCharAt(at);
                    }
                }
                case 2 -> {
                    if (at < b.length()) {
                        b.replace(at, at + 1, noise(random));
                    }
                }
                default -> {
                    // bump a digit: walks dates, times, offsets and octets across their limits
                    if (at < b.length() && Character.isDigit(b.charAt(at))) {
                        b.setCharAt(at, (char) ('0' + (b.charAt(at) - '0' + 1 + random.nextInt(9)) % 10));
                    }
                }
            }
        }
        return b.toString();
    }

    private static String noise(Random random) {
        int index = random.nextInt(NOISE.codePointCount(0, NOISE.length()));
        return new String(Character.toChars(NOISE.codePointAt(NOISE.offsetByCodePoints(0, index))));
    }
}
