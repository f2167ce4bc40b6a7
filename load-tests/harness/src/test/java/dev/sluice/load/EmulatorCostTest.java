package dev.sluice.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EmulatorCostTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    private static PipelineDefinition pipeline(String name) {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/" + name + ".yaml"));
    }

    @Test
    void clickstreamsEventsPassTwiceThroughEachOfItsTwoStreamsAndWriteOneTableItem() {
        EmulatorCost.Passes passes = EmulatorCost.Passes.of(pipeline("clickstream"));

        // clicks-raw: the producer writes, mask-and-rekey reads; clicks-by-page: the hop writes,
        // page-counts reads; page-counts' deduplicate table clicks-by-id takes one item an event
        assertThat(passes.passes()).containsExactlyInAnyOrderEntriesOf(Map.of("clicks-raw", 2, "clicks-by-page", 2));
        assertThat(passes.total()).isEqualTo(4);
        assertThat(passes.tableWrites()).isEqualTo(1);
    }

    @Test
    void paymentsEventsPassThroughOneStreamAndWriteTheirDeduplicateTable() {
        EmulatorCost.Passes passes = EmulatorCost.Passes.of(pipeline("payments"));

        assertThat(passes.passes()).containsEntry("payments-raw", 2);
        assertThat(passes.tableWrites()).isEqualTo(1);
    }

    @Test
    void theKinesisCeilingIsOneSecondOfCpuOverEveryWriteAndReadOfAnEvent() {
        // 1,000 µs per KB written as aggregates, 500 µs per KB read, events of 500 bytes through two
        // streams each written once and read once: 2 × (0.5 × 1,000 + 0.5 × 500) = 1,500 µs an event
        EmulatorCost.Costs costs = new EmulatorCost.Costs(500, 4_000, 1_000, 500, 800, 1, 1);
        EmulatorCost.Passes passes = new EmulatorCost.Passes("p", Map.of("a", 2, "b", 2), 2);

        assertThat(EmulatorCost.kinesisCeiling(costs, passes, 500, true)).isCloseTo(1_000_000 / 1_500.0, within(1e-6));
        // written as single records: 2 × (0.5 × 4,000 + 0.5 × 500) = 4,500 µs
        assertThat(EmulatorCost.kinesisCeiling(costs, passes, 500, false)).isCloseTo(1_000_000 / 4_500.0, within(1e-6));
        // two conditional writes of 800 µs an event
        assertThat(EmulatorCost.dynamoDbCeiling(costs, passes)).isCloseTo(1_000_000 / 1_600.0, within(1e-6));
    }

    @Test
    void aPipelineWithoutTableWritesHasNoDynamoDbCeiling() {
        EmulatorCost.Costs costs = new EmulatorCost.Costs(500, 4_000, 1_000, 500, 800, 1, 1);

        assertThat(EmulatorCost.dynamoDbCeiling(costs, new EmulatorCost.Passes("p", Map.of("a", 2), 0)))
                .isInfinite();
    }
}
