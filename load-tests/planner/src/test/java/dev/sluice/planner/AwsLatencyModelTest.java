package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The AWS latency model: its draws have the published p50 and p99, and a seed replays them. */
class AwsLatencyModelTest {

    private static final int DRAWS = 200_000;

    private static double[] draws(AwsLatencyModel model, String service, String operation) {
        double[] values = new double[DRAWS];
        for (int i = 0; i < DRAWS; i++) {
            values[i] = model.nextMillis(service, operation);
        }
        Arrays.sort(values);
        return values;
    }

    @Test
    void everyOperationsDrawsHaveItsPublishedMedianAndNinetyNinthPercentile() {
        AwsLatencyModel model = new AwsLatencyModel(20_261_202L);
        assertThat(model.figures()).hasSize(AwsLatencyModel.PUBLISHED.size());
        for (AwsLatencyModel.Figure f : model.figures()) {
            double[] values = draws(model, f.service(), f.operation());
            assertThat(AwsBatchModel.quantile(values, 0.50))
                    .as(f.operation() + " p50")
                    .isCloseTo(f.p50Millis(), within(f.p50Millis() * 0.02));
            assertThat(AwsBatchModel.quantile(values, 0.99))
                    .as(f.operation() + " p99")
                    .isCloseTo(f.p99Millis(), within(f.p99Millis() * 0.05));
            assertThat(values[0]).as(f.operation() + " never negative").isPositive();
        }
    }

    @Test
    void theSameSeedDrawsTheSameLatenciesPerOperationAndAnotherSeedOthers() {
        AwsLatencyModel a = new AwsLatencyModel(7);
        AwsLatencyModel b = new AwsLatencyModel(7);
        AwsLatencyModel c = new AwsLatencyModel(8);
        // interleaving other operations does not shift an operation's own sequence
        b.nextMillis("S3", "PutObject");
        b.nextMillis("SQS", "SendMessageBatch");
        double[] first = {a.nextMillis("DYNAMODB", "PutItem"), a.nextMillis("DYNAMODB", "PutItem")};
        double[] second = {b.nextMillis("DYNAMODB", "PutItem"), b.nextMillis("DYNAMODB", "PutItem")};
        double[] other = {c.nextMillis("DYNAMODB", "PutItem"), c.nextMillis("DYNAMODB", "PutItem")};
        assertThat(second).containsExactly(first);
        assertThat(other).doesNotContain(first[0], first[1]);
    }

    @Test
    void anOperationTheModelDoesNotKnowIsNotDelayed() {
        AwsLatencyModel model = new AwsLatencyModel(1);
        assertThat(model.nextNanos("DYNAMODB", "DescribeTable")).isZero();
        assertThat(model.nextNanos("KINESIS", "ListShards")).isZero();
        assertThat(model.nextNanos("KINESIS", "GetRecords")).isPositive();
        assertThat(model.delayedCalls())
                .as("only what it delayed is counted")
                .containsExactly(java.util.Map.entry("KINESIS GetRecords", 1L));
    }

    @Test
    void aFigureNeedsAPositiveMedianBelowItsTail() {
        assertThatThrownBy(() -> new AwsLatencyModel.Figure(
                        "S3", "PutObject", 30, 20, AwsLatencyModel.Basis.ASSUMED, "", "https://example.com"))
                .hasMessageContaining("0 < p50 ≤ p99");
        assertThatThrownBy(() -> new AwsLatencyModel(
                        1, List.of(AwsLatencyModel.PUBLISHED.get(0), AwsLatencyModel.PUBLISHED.get(0))))
                .hasMessageContaining("two figures for DYNAMODB GetItem");
    }

    @Test
    void everyFigureCitesAnHttpsSource() {
        assertThat(AwsLatencyModel.PUBLISHED).allSatisfy(f -> {
            assertThat(f.url()).startsWith("https://");
            assertThat(f.source()).isNotBlank();
        });
    }
}
