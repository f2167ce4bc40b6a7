package dev.sluice.core.pii;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretProvidersTest {

    static final String VALUE = "s3cr3t-Value-that-must-not-leak";

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Nested
    class FileSecrets {

        @TempDir
        Path dir;

        Path write(String name, byte[] content) throws IOException {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.write(file, content);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            return file;
        }

        @Test
        void readsTheFileNamedLikeTheSecretWithoutItsTrailingLineBreak() throws IOException {
            write("lf", utf8(VALUE + "\n"));
            write("crlf", utf8(VALUE + "\r\n"));
            write("none", utf8(VALUE));
            write("two", utf8(VALUE + "\n\n"));
            write("nested/key", utf8(VALUE));
            FileSecretProvider secrets = new FileSecretProvider(dir);

            assertThat(secrets.secret("lf")).isEqualTo(utf8(VALUE));
            assertThat(secrets.secret("crlf")).isEqualTo(utf8(VALUE));
            assertThat(secrets.secret("none")).isEqualTo(utf8(VALUE));
            assertThat(secrets.secret("two")).isEqualTo(utf8(VALUE + "\n"));
            assertThat(secrets.secret("nested/key")).isEqualTo(utf8(VALUE));
        }

        @Test
        void binaryContentIsKeptAsItIs() throws IOException {
            byte[] key = {0, 1, (byte) 0xff, 10, 13, 42};
            write("bin", key);

            assertThat(new FileSecretProvider(dir).secret("bin")).isEqualTo(new byte[] {0, 1, (byte) 0xff, 10, 13, 42});
        }

        @Test
        void missingFileNamesTheSecretAndTheFile() {
            assertThatThrownBy(() -> new FileSecretProvider(dir).secret("tokenization-key"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("'tokenization-key'")
                    .hasMessageContaining(dir.resolve("tokenization-key").toString())
                    .satisfies(e -> assertThat(((SecretUnavailableException) e).isRetryable())
                            .isFalse())
                    .satisfies(e -> assertThat(((SecretUnavailableException) e).secretName())
                            .isEqualTo("tokenization-key"));
        }

        @Test
        void emptyFileIsAnError() throws IOException {
            write("empty", new byte[0]);
            write("blank-line", utf8("\n"));

            assertThatThrownBy(() -> new FileSecretProvider(dir).secret("empty"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("empty");
            assertThatThrownBy(() -> new FileSecretProvider(dir).secret("blank-line"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("empty");
        }

        @Test
        void namesCannotLeaveTheFolder() throws IOException {
            Path outside = Files.writeString(dir.resolve("outside"), VALUE);
            Path inner = Files.createDirectories(dir.resolve("inner"));

            assertThatThrownBy(() -> new FileSecretProvider(inner).secret("../outside"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("leaves the secrets folder");
            assertThatThrownBy(() -> new FileSecretProvider(inner).secret(outside.toString()))
                    .isInstanceOf(SecretUnavailableException.class);
            assertThatThrownBy(() -> new FileSecretProvider(inner).secret(" "))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void worldReadableFileIsStillReadAndRecognised() throws IOException {
            Path file = write("open", utf8(VALUE));
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

            assertThat(new FileSecretProvider(dir).secret("open")).isEqualTo(utf8(VALUE));
            assertThat(FileSecretProvider.worldReadable(file)).isTrue();
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            assertThat(FileSecretProvider.worldReadable(file)).isFalse();
        }

        @Test
        void toStringShowsTheFolderNotTheSecrets() throws IOException {
            write("k", utf8(VALUE));
            FileSecretProvider secrets = new FileSecretProvider(dir);
            secrets.secret("k");

            assertThat(secrets.toString()).contains(dir.toString()).doesNotContain(VALUE);
        }
    }

    @Nested
    class EnvironmentSecrets {

        @Test
        void variableNameIsTheUpperSnakeName() {
            assertThat(EnvironmentSecretProvider.variableName("tokenization-key"))
                    .isEqualTo("SLUICE_SECRET_TOKENIZATION_KEY");
            assertThat(EnvironmentSecretProvider.variableName("sluice/payments/hmac.v2"))
                    .isEqualTo("SLUICE_SECRET_SLUICE_PAYMENTS_HMAC_V2");
        }

        @Test
        void plainValueIsItsUtf8Bytes() {
            EnvironmentSecretProvider secrets =
                    new EnvironmentSecretProvider(Map.of("SLUICE_SECRET_TOKENIZATION_KEY", "zoë " + VALUE));

            assertThat(secrets.secret("tokenization-key")).isEqualTo(utf8("zoë " + VALUE));
        }

        @Test
        void prefixedValueIsBase64() {
            byte[] key = {0, 1, 2, (byte) 0xfe, (byte) 0xff};
            String encoded = Base64.getEncoder().encodeToString(key);
            EnvironmentSecretProvider secrets = new EnvironmentSecretProvider(Map.of(
                    "SLUICE_SECRET_A", "base64:" + encoded,
                    "SLUICE_SECRET_B", "base64:" + encoded.replace("=", ""),
                    "SLUICE_SECRET_C", "base64:" + encoded.substring(0, 4) + "\n" + encoded.substring(4)));

            assertThat(secrets.secret("a")).isEqualTo(key);
            assertThat(secrets.secret("b")).isEqualTo(key);
            assertThat(secrets.secret("c")).isEqualTo(key);
        }

        @Test
        void invalidBase64NamesTheVariableButNotTheValue() {
            EnvironmentSecretProvider secrets =
                    new EnvironmentSecretProvider(Map.of("SLUICE_SECRET_K", "base64:" + VALUE + "!"));

            assertThatThrownBy(() -> secrets.secret("k"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("SLUICE_SECRET_K")
                    .hasMessageContaining("base64")
                    .hasMessageNotContaining(VALUE)
                    .hasNoCause();
        }

        @Test
        void missingOrEmptyVariableIsAnError() {
            EnvironmentSecretProvider secrets = new EnvironmentSecretProvider(
                    Map.of("SLUICE_SECRET_EMPTY", "", "SLUICE_SECRET_EMPTY64", "base64:"));

            assertThatThrownBy(() -> secrets.secret("missing"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("SLUICE_SECRET_MISSING is not set");
            assertThatThrownBy(() -> secrets.secret("empty"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("empty");
            assertThatThrownBy(() -> secrets.secret("empty64"))
                    .isInstanceOf(SecretUnavailableException.class)
                    .hasMessageContaining("empty");
        }

        @Test
        void toStringShowsNoValues() {
            assertThat(new EnvironmentSecretProvider(Map.of("SLUICE_SECRET_K", VALUE)).toString())
                    .doesNotContain(VALUE);
        }
    }

    @Nested
    class CachedSecrets {

        final MutableClock clock = new MutableClock();
        final CountingProvider source = new CountingProvider();
        final CachingSecretProvider cache = new CachingSecretProvider(source, Duration.ofMinutes(5), clock);

        @Test
        void valueIsFetchedOncePerTtl() {
            assertThat(cache.secret("k")).isEqualTo(utf8("v1"));
            clock.advance(Duration.ofMinutes(4));
            assertThat(cache.secret("k")).isEqualTo(utf8("v1"));
            assertThat(source.calls.get()).isEqualTo(1);

            clock.advance(Duration.ofMinutes(1));
            assertThat(cache.secret("k")).isEqualTo(utf8("v2"));
            assertThat(source.calls.get()).isEqualTo(2);
        }

        @Test
        void secretsAreCachedByName() {
            cache.secret("a");
            cache.secret("b");
            cache.secret("a");

            assertThat(source.calls.get()).isEqualTo(2);
        }

        @Test
        void callersGetCopiesTheyMayClear() {
            byte[] first = cache.secret("k");
            java.util.Arrays.fill(first, (byte) 0);

            assertThat(cache.secret("k")).isEqualTo(utf8("v1"));
        }

        @Test
        void failuresAreNotCachedAndExpiredValuesAreNotServed() {
            cache.secret("k");
            clock.advance(Duration.ofMinutes(5));
            source.failing = true;

            assertThatThrownBy(() -> cache.secret("k")).isInstanceOf(SecretUnavailableException.class);
            source.failing = false;
            assertThat(cache.secret("k")).isEqualTo(utf8("v2"));
        }

        @Test
        void invalidatedSecretIsFetchedAgain() {
            cache.secret("k");
            cache.invalidate("k");
            cache.secret("k");
            cache.invalidateAll();
            cache.secret("k");

            assertThat(source.calls.get()).isEqualTo(3);
        }

        @Test
        void concurrentCallersShareOneFetch() throws Exception {
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<byte[]>> results = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return cache.secret("k");
                    }));
                }
                start.countDown();
                for (Future<byte[]> result : results) {
                    assertThat(result.get()).isEqualTo(utf8("v1"));
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(source.calls.get()).isEqualTo(1);
        }

        @Test
        void ttlMustBePositive() {
            assertThatThrownBy(() -> new CachingSecretProvider(source, Duration.ZERO, clock))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void toStringShowsNoValues() {
            cache.secret("k");

            assertThat(cache.toString()).doesNotContain("v1").contains("PT5M");
        }
    }

    /** Returns v1, v2, ... on successive calls. */
    static final class CountingProvider implements SecretProvider {
        final AtomicInteger calls = new AtomicInteger();
        volatile boolean failing;

        @Override
        public byte[] secret(String name) {
            if (failing) {
                throw new SecretUnavailableException(name, "store down", true, null);
            }
            return utf8("v" + calls.incrementAndGet());
        }

        @Override
        public String toString() {
            return "CountingProvider";
        }
    }

    static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-01T10:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
