package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.EnvironmentNames;
import org.junit.jupiter.api.Test;

class LogicalNamesTest {

    @Test
    void logicalNameBecomesPascalCaseConstructId() {
        assertThat(LogicalNames.pascal("payments-by-id")).isEqualTo("PaymentsById");
        assertThat(LogicalNames.pascal("raw2")).isEqualTo("Raw2");
    }

    @Test
    void logicalNameBecomesUpperSnakeVariableSuffix() {
        assertThat(LogicalNames.upperSnake("payments-by-id")).isEqualTo("PAYMENTS_BY_ID");
        assertThat(EnvironmentNames.table("payments-by-id")).isEqualTo("SLUICE_TABLE_PAYMENTS_BY_ID");
        assertThat(EnvironmentNames.queueUrl("payments-dlq")).isEqualTo("SLUICE_QUEUE_URL_PAYMENTS_DLQ");
    }
}
