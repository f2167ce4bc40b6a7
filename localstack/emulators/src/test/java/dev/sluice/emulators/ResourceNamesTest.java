package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ResourceNamesTest {

    /** S3 bucket names, the strictest of the four services (with at most 63 characters). */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

    @Test
    void appendsTheSuffix() {
        assertThat(new ResourceNames("1a2b3c4d").name("orders")).isEqualTo("orders-1a2b3c4d");
    }

    @Test
    void randomSuffixesAreEightHexDigitsAndDiffer() {
        Set<String> suffixes = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String suffix = ResourceNames.random().suffix();
            assertThat(suffix).matches("[0-9a-f]{8}");
            suffixes.add(suffix);
        }
        assertThat(suffixes).hasSizeGreaterThan(95);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "orders",
                "Payments.Ledger",
                "dead letter queue",
                "--x--",
                "a",
                "UPPER_case__and..dots",
                "a-very-long-logical-name-that-goes-on-and-on-and-on-beyond-sixty-three-characters"
            })
    void namesAreValidForEveryService(String logical) {
        String name = ResourceNames.random().name(logical);
        assertThat(name).matches(BUCKET).doesNotContain("--");
        assertThat(name.length()).isLessThanOrEqualTo(ResourceNames.MAX_LENGTH);
    }

    @Test
    void longNamesAreCutBeforeTheSuffix() {
        ResourceNames names = new ResourceNames("cafebabe");
        String name = names.name("x".repeat(100));
        assertThat(name).hasSize(63).endsWith("-cafebabe").startsWith("xxxx");
    }

    @Test
    void lowerCasesAndReplacesInvalidCharacters() {
        assertThat(new ResourceNames("00ff").name("My Stream_v2")).isEqualTo("my-stream-v2-00ff");
    }

    @Test
    void fifoQueueNamesEndWithFifo() {
        ResourceNames names = new ResourceNames("00ff");
        assertThat(names.fifoQueueName("events")).isEqualTo("events-00ff.fifo");
        assertThat(names.fifoQueueName("events.fifo")).isEqualTo("events-00ff.fifo");
    }

    @Test
    void rejectsUnusableInput() {
        assertThatThrownBy(() -> new ResourceNames("Bad_Suffix")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ResourceNames("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ResourceNames("abc-")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResourceNames.random().name("___")).isInstanceOf(IllegalArgumentException.class);
    }
}
