package dev.sluice.core.stage;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Format;
import com.networknt.schema.Formats;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TimestampsTest {

    private static final Format NETWORKNT_DATE_TIME = Formats.DEFAULT.stream()
            .filter(f -> f.getName().equals("date-time"))
            .findFirst()
            .orElseThrow();

    @ParameterizedTest
    @CsvSource({
        "2016-12-31T23:59:60Z, 2016-12-31T23:59:59Z",
        "2016-12-31T23:59:60.5Z, 2016-12-31T23:59:59.5Z",
        "2016-12-31T22:59:60.25-01:00, 2016-12-31T23:59:59.25Z",
        "2015-06-30T23:59:60Z, 2015-06-30T23:59:59Z"
    })
    void realLeapSecondIsTheLastSecondOfItsMinuteAsInstantParseReadsIt(String text, String instant) {
        assertThat(Timestamps.parse(text)).isEqualTo(Instant.parse(instant));
        // the same verdict as the schema's date-time format, so validation and event time agree
        assertThat(NETWORKNT_DATE_TIME.matches(null, text)).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"2026-11-30T12:00:60Z", "2025-12-31T23:59:60Z", "2016-12-31T23:59:60+01:00", "2016-12-31T23:59:61Z"})
    void secondSixtyWhereNoLeapSecondWasIsRefusedLikeTheSchemaRefusesIt(String text) {
        assertThat(Timestamps.parse(text)).isNull();
        assertThat(NETWORKNT_DATE_TIME.matches(null, text)).isFalse();
    }
}
