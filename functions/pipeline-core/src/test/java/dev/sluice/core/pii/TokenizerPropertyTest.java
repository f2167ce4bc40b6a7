package dev.sluice.core.pii;

import static dev.sluice.core.testing.Theories.assertFalsified;
import static dev.sluice.core.testing.Theories.fromRandom;
import static dev.sluice.core.testing.Theories.qt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.testing.Theories;
import java.util.Arrays;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * {@link Tokenizer}, which computes HMAC-SHA256 from digests of the key blocks hashed once, gives
 * exactly the token of {@link javax.crypto.Mac} ({@link TokenizerTest#expectedToken}) for any key of
 * 32 to 200 bytes (shorter than, as long as, and longer than SHA-256's 64-byte block, which RFC 2104
 * hashes first) and any text (non-ASCII, surrogates, empty, longer than a block), one tokenizer
 * reused for several values as a stage does. {@link #aTokenizerThatTruncatesLongKeysIsCaught} runs
 * the property with keys cut to a block instead of hashed, which it must falsify.
 */
class TokenizerPropertyTest {

    record Case(byte[] key, String keyId, String[] values) {
        @Override
        public String toString() {
            return "key of " + key.length + " bytes, key id " + keyId + ", values " + Arrays.toString(values);
        }
    }

    static Gen<Case> cases() {
        Gen<String> text = Theories.text(0, 150);
        return fromRandom(random -> {
            int[] lengths = {32, 63, 64, 65, 128, 200};
            byte[] key =
                    new byte[random.nextBoolean() ? lengths[random.nextInt(lengths.length)] : 32 + random.nextInt(169)];
            random.nextBytes(key);
            String[] values = new String[1 + random.nextInt(4)];
            for (int i = 0; i < values.length; i++) {
                values[i] = value(random);
            }
            return new Case(key, random.nextBoolean() ? null : "k" + random.nextInt(100), values);
        });
    }

    private static String value(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(random.nextBoolean() ? 30 : 200);
        for (int i = 0; i < length; i++) {
            s.append(
                    switch (random.nextInt(6)) {
                        case 0 -> (char) random.nextInt(0x10000);
                        case 1 -> "é€😀";
                        default -> (char) (0x20 + random.nextInt(0x5f));
                    });
        }
        return s.toString();
    }

    @Test
    void tokensAreTheTruncatedHmacOfJavaxCrypto() {
        tokensAreTheTruncatedHmacOfJavaxCrypto(Tokenizer::new);
    }

    /** Broken: a key longer than a block is cut to it, not hashed. */
    @Test
    void aTokenizerThatTruncatesLongKeysIsCaught() {
        assertFalsified(() -> tokensAreTheTruncatedHmacOfJavaxCrypto(
                (key, keyId) -> new Tokenizer(Arrays.copyOf(key, Math.min(key.length, 64)), keyId)));
    }

    static void tokensAreTheTruncatedHmacOfJavaxCrypto(BiFunction<byte[], String, Tokenizer> tokenizers) {
        qt(500).forAll(cases()).checkAssert(c -> {
            Tokenizer tokenizer = tokenizers.apply(c.key().clone(), c.keyId());
            String prefix = c.keyId() == null ? "tok_" : "tok_" + c.keyId() + "_";
            for (String value : c.values()) {
                try {
                    assertThat(tokenizer.token(value))
                            .as("%s: %s", c, value)
                            .isEqualTo(TokenizerTest.expectedToken(c.key(), prefix, value));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
    }
}
