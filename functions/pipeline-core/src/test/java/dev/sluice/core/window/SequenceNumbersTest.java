package dev.sluice.core.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.event.Position;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequenceNumbersTest {

    private static final String SEQ = "49590338271490256608559692538361571095921575989136588898";

    @Test
    void userRecordsOfAnAggregateSortAfterTheirSequenceNumberAndBeforeTheNext() {
        List<String> ordered = List.of("99", "100", "100.1", "100.2", "100.10", "100.99999", "101", SEQ, SEQ + ".3");
        for (int i = 0; i < ordered.size(); i++) {
            for (int j = 0; j < ordered.size(); j++) {
                String a = ordered.get(i);
                String b = ordered.get(j);
                assertThat(Integer.signum(SequenceNumbers.compare(a, b)))
                        .as("%s vs %s", a, b)
                        .isEqualTo(Integer.signum(Integer.compare(i, j)));
                assertThat(Integer.signum(SequenceNumbers.fixedWidth(a).compareTo(SequenceNumbers.fixedWidth(b))))
                        .as("fixed width of %s vs %s", a, b)
                        .isEqualTo(Integer.signum(Integer.compare(i, j)));
            }
            assertThat(SequenceNumbers.fromFixedWidth(SequenceNumbers.fixedWidth(ordered.get(i))))
                    .isEqualTo(ordered.get(i));
        }
    }

    @Test
    void aRecordThatWasNotAggregatedKeepsItsStoredFormByteForByte() {
        assertThat(SequenceNumbers.fixedWidth(SEQ)).hasSize(129).isEqualTo("0".repeat(129 - SEQ.length()) + SEQ);
        assertThat(SequenceNumbers.of(SEQ, 0)).isEqualTo(SEQ);
        assertThat(new Position("shardId-000000000000", SEQ, 0).sequence()).isEqualTo(SEQ);
        assertThat(new Position("shardId-000000000000", SEQ, 12).sequence()).isEqualTo(SEQ + ".12");
        assertThat(SequenceNumbers.fixedWidth(SEQ + ".12"))
                .endsWith(SEQ + ".00012")
                .hasSize(135);
    }

    @Test
    void onlyCanonicalSubSequencesAreValid() {
        List<String> invalid = new ArrayList<>(List.of("1.", "1.0", "1.01", ".1", "1.123456", "1.2.3", "01.1", "1.a"));
        assertThat(invalid)
                .allSatisfy(s -> assertThat(SequenceNumbers.isValid(s)).as(s).isFalse());
        assertThat(List.of("0.1", "1.99999", "7.10"))
                .allSatisfy(s -> assertThat(SequenceNumbers.isValid(s)).as(s).isTrue());
    }
}
