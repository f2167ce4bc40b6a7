package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogicalNamesTest {

    @Test
    void logicalNameBecomesPascalCaseConstructId() {
        assertThat(LogicalNames.pascal("payments-by-id")).isEqualTo("PaymentsById");
        assertThat(LogicalNames.pascal("raw2")).isEqualTo("Raw2");
    }
}
