package dev.sluice.core.schema.fast;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.Theories;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The token reader's table of strings a subschema accepted answers "known" only for a string that
 * was added (it may forget one, never invent one), whatever the slot two strings of one length share.
 */
class ValidStringsTest {

    @Test
    void knowsOnlyStringsThatWereAdded() {
        Random random = new Random(Theories.seed());
        TokenReader.ValidStrings valid = new TokenReader.ValidStrings();
        Set<String> added = new HashSet<>();
        List<String> asked = new ArrayList<>();
        int known = 0;
        for (int i = 0; i < 3_000; i++) {
            String value = word(random);
            char[] padded = ("<<" + value + ">>").toCharArray(); // a token inside the parser's buffer
            if (valid.contains(padded, 2, value.length())) {
                known++;
                asked.add(value);
            }
            if (value.charAt(0) < 'd') { // half the words are never added: a subschema refused them
                valid.add(padded, 2, value.length());
                added.add(value);
            }
        }

        assertThat(added).containsAll(asked);
        assertThat(added).hasSizeLessThan(150); // and the other half was asked about, in the same slots
        assertThat(known).as("repeated values are found").isGreaterThan(100);
    }

    /** Three letters of a small alphabet: many repeats, many strings of the same length. */
    private static String word(Random random) {
        char[] chars = new char[3];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = (char) ('a' + random.nextInt(6));
        }
        return new String(chars);
    }
}
