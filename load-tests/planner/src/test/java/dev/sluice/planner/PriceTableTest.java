package dev.sluice.planner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PriceTableTest {

    @Test
    void bundledTableHasEveryPriceWithASourceAndADate() {
        PriceTable table = PriceTable.bundled();

        assertThat(table.region()).isEqualTo("us-east-1");
        assertThat(table.currency()).isEqualTo("USD");
        assertThat(table.asOf()).isNotNull();
        assertThat(table.hoursPerMonth()).isEqualTo(730);
        assertThat(table.prices().keySet()).containsAll(PriceTable.REQUIRED);
        assertThat(table.prices().values()).allSatisfy(price -> {
            assertThat(price.source()).startsWith("https://aws.amazon.com/");
            assertThat(price.price()).isNotNegative();
            assertThat(price.unit()).isNotBlank();
        });
    }

    @Test
    void everyUncheckedPriceSaysWhy() {
        assertThat(PriceTable.bundled().prices().values())
                .filteredOn(price -> !price.verified())
                .allSatisfy(price -> assertThat(price.note()).isNotBlank());
    }

    @Test
    void aTableFromAFileIsReadLikeTheBundledOne(@TempDir Path dir) throws Exception {
        Path copy = dir.resolve("prices.json");
        try (var in = PriceTable.class.getClassLoader().getResourceAsStream(PriceTable.BUNDLED)) {
            Files.write(copy, in.readAllBytes());
        }

        assertThat(PriceTable.load(copy).prices())
                .isEqualTo(PriceTable.bundled().prices());
    }

    @Test
    void missingFileIsAClearError(@TempDir Path dir) {
        Path missing = dir.resolve("nope.json");

        assertThatThrownBy(() -> PriceTable.load(missing))
                .isInstanceOf(PriceTableException.class)
                .hasMessage("price table " + missing + ": no such file");
    }

    @Test
    void notJsonIsAClearError() {
        assertThatThrownBy(() -> parse("{ not json"))
                .isInstanceOf(PriceTableException.class)
                .hasMessageStartingWith("price table t.json is not valid JSON: ");
    }

    @Test
    void aTableWithoutADateIsRefused() {
        assertThatThrownBy(() -> parse(bundledText().replaceFirst("\"asOf\": \"[^\"]*\",", "")))
                .hasMessage("price table t.json: asOf is missing");
        assertThatThrownBy(() -> parse(bundledText().replaceFirst("\"asOf\": \"[^\"]*\"", "\"asOf\": \"last week\"")))
                .hasMessage("price table t.json: asOf must be a date like 2026-11-30, got 'last week'");
    }

    @Test
    void aPriceWithoutASourceIsRefused() {
        String text =
                bundledText().replaceFirst("\"source\": \"https://aws.amazon.com/kinesis/data-streams/pricing/\",", "");

        assertThatThrownBy(() -> parse(text)).hasMessage("price table t.json: kinesis.shardHour.source is missing");
    }

    @Test
    void aNegativeOrMissingPriceIsRefused() {
        assertThatThrownBy(() -> parse(bundledText().replace("\"price\": 0.015,", "\"price\": -0.015,")))
                .hasMessage("price table t.json: kinesis.shardHour: price must be a number of zero or more");
        assertThatThrownBy(() -> parse(bundledText().replace("\"kms.keyMonth\"", "\"kms.keyYear\"")))
                .hasMessage("price table t.json has no price kms.keyMonth");
    }

    private static PriceTable parse(String json) {
        return PriceTable.parse("t.json", json.getBytes(StandardCharsets.UTF_8));
    }

    private static String bundledText() {
        try (var in = PriceTable.class.getClassLoader().getResourceAsStream(PriceTable.BUNDLED)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
