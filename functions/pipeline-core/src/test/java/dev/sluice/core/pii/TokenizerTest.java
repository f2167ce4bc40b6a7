package dev.sluice.core.pii;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class TokenizerTest {

    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OTHER_KEY = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);

    /** HMAC-SHA256 computed here with javax.crypto directly, not through Tokenizer. */
    static String expectedToken(byte[] key, String prefix, String value) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        byte[] full = mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
        return prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(full, 16));
    }

    @Test
    void sameKeyGivesTheSameTokenInAnotherInstance() {
        Tokenizer one = new Tokenizer(KEY);
        Tokenizer two = new Tokenizer(KEY.clone());

        assertThat(one.token("j.devries@example.nl"))
                .isEqualTo(two.token("j.devries@example.nl"))
                .startsWith("tok_")
                .hasSize(26)
                .matches("tok_[A-Za-z0-9_-]{22}");
    }

    @Test
    void anotherKeyGivesAnotherToken() {
        assertThat(new Tokenizer(KEY).token("j.devries@example.nl"))
                .isNotEqualTo(new Tokenizer(OTHER_KEY).token("j.devries@example.nl"));
    }

    @Test
    void differentValuesGiveDifferentTokens() {
        Tokenizer tokenizer = new Tokenizer(KEY);
        assertThat(tokenizer.token("a@example.com")).isNotEqualTo(tokenizer.token("b@example.com"));
    }

    @Test
    void tokenIsTheTruncatedHmacOfTheUtf8Value() throws Exception {
        Tokenizer tokenizer = new Tokenizer(KEY);
        for (String value : List.of(
                "",
                "j.devries@example.nl",
                "zoë@exämple.de",
                "用户@例子.中国",
                "emoji 😀 and ✓",
                "unpaired \ud800 high and \udc00 low surrogates",
                "x".repeat(20_000))) {
            assertThat(tokenizer.token(value)).as(value).isEqualTo(expectedToken(KEY, "tok_", value));
        }
    }

    @Test
    void tokenMatchesRfc4231TestVector() {
        // RFC 4231 test case 6: a 131-byte key of 0xaa, the MAC truncated to 128 bits
        byte[] key = new byte[131];
        Arrays.fill(key, (byte) 0xaa);
        byte[] mac = HexFormat.of().parseHex("60e431591ee0b67f0d8a26aacbf5b77f");

        assertThat(new Tokenizer(key).token("Test Using Larger Than Block-Size Key - Hash Key First"))
                .isEqualTo("tok_" + Base64.getUrlEncoder().withoutPadding().encodeToString(mac));
    }

    @Test
    void tokensAreStableAcrossReleases() {
        // pinned: changing the token format breaks every join against data tokenised before
        assertThat(new Tokenizer(KEY).token("j.devries@example.nl")).isEqualTo(PINNED);
    }

    static final String PINNED = "tok_SgRf-d5MrM6XE6d7KKEUUA";

    @Test
    void keyIdTellsRotatedKeysApart() throws Exception {
        String old = new Tokenizer(KEY, "k1").token("j.devries@example.nl");
        String rotated = new Tokenizer(OTHER_KEY, "k2").token("j.devries@example.nl");

        assertThat(old)
                .startsWith("tok_k1_")
                .hasSize(29)
                .isEqualTo(expectedToken(KEY, "tok_k1_", "j.devries@example.nl"));
        assertThat(rotated).startsWith("tok_k2_");
        assertThat(new Tokenizer(KEY, "k1").keyId()).contains("k1");
        assertThat(new Tokenizer(KEY).keyId()).isEmpty();
        assertThat(new Tokenizer(KEY, "k1").tokenLength()).isEqualTo(29);
    }

    @Test
    void shortKeysAreRefused() {
        assertThatThrownBy(() -> new Tokenizer(new byte[31]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> new Tokenizer(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyIdsAreShortLettersAndDigits() {
        assertThatThrownBy(() -> new Tokenizer(KEY, "k_1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("k_1");
        assertThatThrownBy(() -> new Tokenizer(KEY, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Tokenizer(KEY, "k".repeat(17))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyNeverAppearsInToString() {
        assertThat(new Tokenizer(KEY, "k1").toString())
                .doesNotContain(new String(KEY, StandardCharsets.US_ASCII))
                .doesNotContain("0123456789abcdef")
                .contains("k1");
    }

    @Test
    void fromSecretReadsTheKeyFromAProvider() {
        SecretProvider secrets = new EnvironmentSecretProvider(
                Map.of("SLUICE_SECRET_TOKENIZATION_KEY", new String(KEY, StandardCharsets.US_ASCII)));

        assertThat(Tokenizer.fromSecret(secrets, "tokenization-key", null).token("x"))
                .isEqualTo(new Tokenizer(KEY).token("x"));
    }

    @Test
    void fromSecretNamesTheSecretWhenItIsTooShortButNotItsValue() {
        SecretProvider secrets = new EnvironmentSecretProvider(Map.of("SLUICE_SECRET_TOKENIZATION_KEY", "hunter2"));

        assertThatThrownBy(() -> Tokenizer.fromSecret(secrets, "tokenization-key", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tokenization-key")
                .hasMessageContaining("at least 32 bytes")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void concurrentCallersGetTheSameTokensAsOneCaller() throws Exception {
        Tokenizer tokenizer = new Tokenizer(KEY);
        List<String> values = IntStream.range(0, 2_000)
                .mapToObj(i -> "user" + i + "@example.com")
                .toList();
        List<String> sequential = values.stream().map(tokenizer::token).toList();

        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<List<String>>> tasks = IntStream.range(0, 8)
                    .<Callable<List<String>>>mapToObj(
                            t -> () -> values.stream().map(tokenizer::token).toList())
                    .toList();
            for (Future<List<String>> result : pool.invokeAll(tasks)) {
                assertThat(result.get()).isEqualTo(sequential);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void nullIsNotTokenised() {
        assertThatThrownBy(() -> new Tokenizer(KEY).token(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
