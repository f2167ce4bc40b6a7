package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EnvironmentNamesTest {

    @Test
    void logicalNamesBecomeUpperSnakeVariableNames() {
        assertThat(EnvironmentNames.table("payments-by-id")).isEqualTo("SLUICE_TABLE_PAYMENTS_BY_ID");
        assertThat(EnvironmentNames.queueUrl("payments-dlq")).isEqualTo("SLUICE_QUEUE_URL_PAYMENTS_DLQ");
        assertThat(EnvironmentNames.upperSnake("raw2")).isEqualTo("RAW2");
    }
}
