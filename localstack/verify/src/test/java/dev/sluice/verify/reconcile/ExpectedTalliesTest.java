package dev.sluice.verify.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.generators.GeneratedEvent;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the reconciler expects an aggregate to hold, read from the producer's ledger. */
class ExpectedTalliesTest {

    private final ObjectMapper decimals = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private final AggregateCheck perMinute =
            new AggregateCheck("aggregates", "spend", "customerId", "amount", Duration.ofMinutes(1));

    @Test
    void aLeapSecondCountsInTheMinuteItClosesAsThePipelineReadsIt() {
        var ledger = List.of(
                entry("e-1", "2016-12-31T23:59:59Z", "10.00", 1),
                entry("e-2", "2016-12-31T23:59:60.5Z", "2.50", 2),
                entry("e-3", "2017-01-01T00:00:00Z", "1.00", 3));

        var tallies = Reconciler.expectedTallies(perMinute, ledger, Map.of(), Set.of(), decimals);

        assertThat(tallies).containsOnlyKeys("c-1 2016-12-31T23:59:00Z", "c-1 2017-01-01T00:00:00Z");
        assertThat(tallies.get("c-1 2016-12-31T23:59:00Z").count).isEqualTo(2);
        assertThat(tallies.get("c-1 2016-12-31T23:59:00Z").sum).isEqualByComparingTo(new BigDecimal("12.50"));
        assertThat(tallies.get("c-1 2017-01-01T00:00:00Z").count).isEqualTo(1);
    }

    @Test
    void invalidLateRefusedAndResentEventsAreNotExpected() {
        var ledger = List.of(
                entry("e-1", "2026-11-30T10:00:01Z", "1.00", 1),
                entry("e-1", "2026-11-30T10:00:01Z", "1.00", 2), // the producer re-sent it
                entry("e-2", "2026-11-30T10:00:02Z", "2.00", 3), // late
                entry("e-3", "2026-11-30T10:00:03Z", "3.00", 4), // refused by the store
                new LedgerEntry(
                        new GeneratedEvent("e-4", "c-1", "{}".getBytes(StandardCharsets.UTF_8), "SCHEMA_INVALID"),
                        "shardId-000000000000",
                        "5"));

        var tallies = Reconciler.expectedTallies(
                perMinute, ledger, Map.of("shardId-000000000000/3", true), Set.of("e-3"), decimals);

        assertThat(tallies).containsOnlyKeys("c-1 2026-11-30T10:00:00Z");
        assertThat(tallies.get("c-1 2026-11-30T10:00:00Z").count).isEqualTo(1);
        assertThat(tallies.get("c-1 2026-11-30T10:00:00Z").sum).isEqualByComparingTo(new BigDecimal("1.00"));
    }

    private static LedgerEntry entry(String id, String occurredAt, String amount, int sequence) {
        String json = "{\"eventId\":\"" + id + "\",\"occurredAt\":\"" + occurredAt
                + "\",\"customerId\":\"c-1\",\"amount\":" + amount + "}";
        return new LedgerEntry(
                new GeneratedEvent(id, "c-1", json.getBytes(StandardCharsets.UTF_8), null),
                "shardId-000000000000",
                Integer.toString(sequence));
    }
}
