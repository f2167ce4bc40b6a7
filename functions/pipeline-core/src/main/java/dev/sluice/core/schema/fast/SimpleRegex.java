package dev.sluice.core.schema.fast;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An allocation-free matcher for the small, fully anchored regular expressions event schemas use, such as {@code
 * ^cust-[0-9]{7}$} or {@code ^[A-Za-z0-9_-]+$}: a sequence of ASCII character sets, each with a greedy quantifier,
 * between {@code ^} and {@code $}.
 *
 * <p>networknt runs {@code pattern} with {@code java.util.regex.Pattern.compile(regex).matcher(s).find()}. For the
 * syntax accepted here that search equals "the whole string matches the atom sequence", with one difference: Java's
 * {@code $} (without MULTILINE) also matches before a final line terminator. {@link #matches} therefore answers
 * {@code true} only when the string matches exactly (which Java's find() then also does) and the caller falls back to
 * the JDK pattern whenever this matcher says no and the string ends with a line terminator (see {@link
 * #mayNeedJdk(String)}). Anything outside the supported syntax is not compiled here at all.
 */
final class SimpleRegex {

    private final String[] literal; // a run of single characters, or null for a set with a quantifier
    private final long[] lo; // set bits 0..63 per atom
    private final long[] hi; // set bits 64..127 per atom
    private final int[] min;
    private final int[] max;

    private SimpleRegex(List<long[]> sets, List<int[]> counts) {
        // merge runs of single, unquantified characters ("cust-") into literals
        List<String> literals = new ArrayList<>();
        List<Integer> atoms = new ArrayList<>();
        StringBuilder run = new StringBuilder();
        for (int i = 0; i <= sets.size(); i++) {
            int single = i < sets.size() ? singleChar(sets.get(i), counts.get(i)) : -1;
            if (single >= 0) {
                run.append((char) single);
                continue;
            }
            if (run.length() > 0) {
                literals.add(run.toString());
                atoms.add(-1);
                run.setLength(0);
            }
            if (i < sets.size()) {
                literals.add(null);
                atoms.add(i);
            }
        }
        int n = atoms.size();
        literal = new String[n];
        lo = new long[n];
        hi = new long[n];
        min = new int[n];
        max = new int[n];
        for (int k = 0; k < n; k++) {
            int i = atoms.get(k);
            literal[k] = literals.get(k);
            if (i >= 0) {
                lo[k] = sets.get(i)[0];
                hi[k] = sets.get(i)[1];
                min[k] = counts.get(i)[0];
                max[k] = counts.get(i)[1];
            }
        }
    }

    /** The character of a one-character set matched exactly once, else -1. */
    private static int singleChar(long[] set, int[] count) {
        if (count[0] != 1 || count[1] != 1 || Long.bitCount(set[0]) + Long.bitCount(set[1]) != 1) {
            return -1;
        }
        return set[0] != 0 ? Long.numberOfTrailingZeros(set[0]) : 64 + Long.numberOfTrailingZeros(set[1]);
    }

    /** Whether the whole string matches (strict end anchor). No allocation. */
    boolean matches(String s) {
        return match(s, 0, 0);
    }

    /**
     * Whether a "no" from {@link #matches} may be a "yes" for {@code java.util.regex}: only when the string ends with
     * a line terminator, before which Java's {@code $} also matches.
     */
    static boolean mayNeedJdk(String s) {
        if (s.isEmpty()) {
            return false;
        }
        char c = s.charAt(s.length() - 1);
        return c == '\n' || c == '\r' || c == '\u0085' || c == '\u2028' || c == '\u2029';
    }

    private boolean match(String s, int atom, int pos) {
        int n = s.length();
        while (atom < lo.length) {
            String text = literal[atom];
            if (text != null) {
                if (!s.startsWith(text, pos)) {
                    return false;
                }
                pos += text.length();
                atom++;
                continue;
            }
            int lower = min[atom];
            int upper = max[atom];
            long low = lo[atom];
            long high = hi[atom];
            int count = 0;
            int limit = Math.min(n - pos, upper);
            while (count < limit) {
                char c = s.charAt(pos + count);
                long bits = c < 64 ? low >>> c : c < 128 ? high >>> (c - 64) : 0;
                if ((bits & 1) == 0) {
                    break;
                }
                count++;
            }
            if (count < lower) {
                return false;
            }
            if (count == lower || atom == lo.length - 1) {
                // no choice to make (fixed count, or the last atom must reach the end greedily)
                pos += count;
                atom++;
                continue;
            }
            for (int k = count; k >= lower; k--) {
                if (match(s, atom + 1, pos + k)) {
                    return true;
                }
            }
            return false;
        }
        return pos == n;
    }

    /** Compiles the regex if it is in the supported subset, else empty (the caller then uses the JDK). */
    static Optional<SimpleRegex> compile(String regex) {
        try {
            return Optional.of(new Parser(regex).parse());
        } catch (IllegalArgumentException unsupported) {
            return Optional.empty();
        }
    }

    private static final class Parser {
        private static final String META = "\\^$.|?*+()[]{}";
        private final String re;
        private int i;
        private final List<long[]> sets = new ArrayList<>();
        private final List<int[]> counts = new ArrayList<>();

        Parser(String re) {
            this.re = re;
        }

        SimpleRegex parse() {
            if (re.length() < 2 || re.charAt(0) != '^' || re.charAt(re.length() - 1) != '$') {
                throw unsupported();
            }
            // a final "\$" is an escaped dollar, not the anchor
            if (re.length() >= 3 && re.charAt(re.length() - 2) == '\\') {
                throw unsupported();
            }
            i = 1;
            int end = re.length() - 1;
            while (i < end) {
                long[] set = atom(end);
                int[] count = quantifier(end);
                sets.add(set);
                counts.add(count);
            }
            return new SimpleRegex(sets, counts);
        }

        private long[] atom(int end) {
            char c = re.charAt(i);
            if (c == '[') {
                return charClass(end);
            }
            if (c == '\\') {
                long[] set = new long[2];
                escape(set, end);
                return set;
            }
            if (META.indexOf(c) >= 0 || !printableAscii(c)) {
                throw unsupported();
            }
            i++;
            long[] set = new long[2];
            add(set, c);
            return set;
        }

        /** Parses an escape at {@code i} into the set; returns the literal char, or -1 for a class escape. */
        private int escape(long[] set, int end) {
            if (i + 1 >= end) {
                throw unsupported();
            }
            char e = re.charAt(i + 1);
            i += 2;
            if (e == 'd') {
                addRange(set, '0', '9');
                return -1;
            }
            if (e == 'w') {
                addRange(set, 'a', 'z');
                addRange(set, 'A', 'Z');
                addRange(set, '0', '9');
                add(set, '_');
                return -1;
            }
            if (META.indexOf(e) >= 0 || e == '-' || e == '/' || e == '.' || e == '_' || e == '@' || e == ':') {
                add(set, e);
                return e;
            }
            throw unsupported();
        }

        private long[] charClass(int end) {
            long[] set = new long[2];
            i++; // '['
            if (i < end && (re.charAt(i) == '^' || re.charAt(i) == ']')) {
                throw unsupported(); // negation, or a leading ']' (Java: literal) — keep it simple
            }
            boolean first = true;
            while (true) {
                if (i >= end) {
                    throw unsupported();
                }
                char c = re.charAt(i);
                if (c == ']') {
                    if (first) {
                        throw unsupported(); // empty class
                    }
                    i++;
                    return set;
                }
                int from;
                if (c == '\\') {
                    from = escape(set, end);
                    if (from < 0) {
                        first = false;
                        continue; // \d, \w: no range may start here
                    }
                } else if (c == '[' || c == '&' || !printableAscii(c)) {
                    throw unsupported(); // nested classes, intersections
                } else if (c == '-') {
                    // a literal '-' only at the start or right before ']'
                    if (!(first || (i + 1 < end && re.charAt(i + 1) == ']'))) {
                        throw unsupported();
                    }
                    add(set, c);
                    i++;
                    first = false;
                    continue;
                } else {
                    from = c;
                    add(set, c);
                    i++;
                }
                first = false;
                // a range "x-y" (but "x-]" is a literal '-')
                if (i + 1 < end && re.charAt(i) == '-' && re.charAt(i + 1) != ']') {
                    char to = re.charAt(i + 1);
                    if (to == '\\' || to == '[' || to == '&' || !printableAscii(to) || to < from) {
                        throw unsupported();
                    }
                    addRange(set, (char) from, to);
                    i += 2;
                }
            }
        }

        private int[] quantifier(int end) {
            if (i >= end) {
                return new int[] {1, 1};
            }
            char c = re.charAt(i);
            int[] q;
            if (c == '?') {
                q = new int[] {0, 1};
                i++;
            } else if (c == '*') {
                q = new int[] {0, Integer.MAX_VALUE};
                i++;
            } else if (c == '+') {
                q = new int[] {1, Integer.MAX_VALUE};
                i++;
            } else if (c == '{') {
                int close = re.indexOf('}', i);
                if (close < 0 || close >= end) {
                    throw unsupported();
                }
                String body = re.substring(i + 1, close);
                int comma = body.indexOf(',');
                int lower;
                int upper;
                if (comma < 0) {
                    lower = number(body);
                    upper = lower;
                } else {
                    lower = number(body.substring(0, comma));
                    String rest = body.substring(comma + 1);
                    upper = rest.isEmpty() ? Integer.MAX_VALUE : number(rest);
                }
                if (upper < lower) {
                    throw unsupported();
                }
                q = new int[] {lower, upper};
                i = close + 1;
            } else {
                return new int[] {1, 1};
            }
            // lazy or possessive modifiers, or stacked quantifiers
            if (i < end && "?+*{".indexOf(re.charAt(i)) >= 0) {
                throw unsupported();
            }
            return q;
        }

        private static int number(String digits) {
            if (digits.isEmpty() || digits.length() > 6) {
                throw unsupported();
            }
            for (int k = 0; k < digits.length(); k++) {
                if (digits.charAt(k) < '0' || digits.charAt(k) > '9') {
                    throw unsupported();
                }
            }
            return Integer.parseInt(digits);
        }

        private static boolean printableAscii(char c) {
            return c >= 0x20 && c < 0x7f;
        }

        private static void add(long[] set, char c) {
            if (c < 64) {
                set[0] |= 1L << c;
            } else {
                set[1] |= 1L << (c - 64);
            }
        }

        private static void addRange(long[] set, char from, char to) {
            for (char c = from; c <= to; c++) {
                add(set, c);
            }
        }

        private static IllegalArgumentException unsupported() {
            return new IllegalArgumentException("unsupported regex");
        }
    }
}
