package dev.sluice.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.TestFiles;
import dev.sluice.core.schema.SchemaCatalog;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The event builders give events that conform to schemas/ unless a test makes them otherwise. */
class EventsTest {

    private final SchemaCatalog schemas = TestFiles.schemas();

    @Test
    void builtPaymentsConformToTheirSchema() {
        Events.Payment payment = Events.payment()
                .eventId("pay-00000001")
                .customer("cust-0000007")
                .card("5500000000000004")
                .email("a.jansen@example.nl")
                .amount("12.30")
                .currency("USD")
                .country("DE")
                .merchant("m-000001")
                .merchantName("Bakker Bart")
                .at(Instant.parse("2026-11-30T10:00:00Z"));

        assertThat(schemas.schema("payments.transaction.v1")
                        .violations(Events.payment().node()))
                .isEmpty();
        assertThat(schemas.schema("payments.transaction.v1").violations(payment.node()))
                .isEmpty();
        assertThat(payment.key()).isEqualTo("cust-0000007");
        assertThat(payment.json()).contains("\"amount\":12.30").contains("\"occurredAt\":\"2026-11-30T10:00:00Z\"");
    }

    @Test
    void builtClicksConformToTheirSchema() {
        Events.Click click = Events.click()
                .eventId("clk-00000001")
                .session("s-00000000abc1")
                .visitor("v-00000000def1")
                .email("visitor1@example.com")
                .ipAddress("198.51.100.7")
                .userAgent("Googlebot/2.1")
                .page("p-000777")
                .url("/products/7")
                .durationMs(1234)
                .at(Instant.parse("2026-11-30T10:00:00Z"));

        assertThat(schemas.schema("clickstream.pageview.v1")
                        .violations(Events.click().node()))
                .isEmpty();
        assertThat(schemas.schema("clickstream.pageview.v1").violations(click.node()))
                .isEmpty();
        assertThat(click.key()).isEqualTo("s-00000000abc1");
    }

    @Test
    void aBuilderChangesOnlyWhatItIsTold() {
        assertThat(Events.payment().node()).isEqualTo(Events.fixtureNode("payment-valid.json"));
        assertThat(Events.click().node()).isEqualTo(Events.fixtureNode("click-view.json"));
        assertThat(Events.payment().without("occurredAt").node().has("occurredAt"))
                .isFalse();
        assertThat(schemas.schema("payments.transaction.v1")
                        .violations(Events.payment().amount("-5.00").node()))
                .containsExactly("$.payload.amount: must have an exclusive minimum value of 0 (exclusiveMinimum)");
    }

    @Test
    void recordsCarryTheirStreamShardAndKey() {
        Records raw = Records.on("payments-raw").arrivedAt(Instant.parse("2026-11-30T19:59:59Z"));

        var built = raw.at(7, Events.payment().customer("cust-0000009"));
        var bytes = raw.shard("shardId-000000000003").partitionKey("p").at("8", new byte[] {1});

        assertThat(built.stream()).isEqualTo("payments-raw");
        assertThat(built.position().shardId()).isEqualTo(Records.SHARD);
        assertThat(built.position().sequenceNumber()).isEqualTo("7");
        assertThat(built.partitionKey()).isEqualTo("cust-0000009");
        assertThat(built.arrivedAt()).isEqualTo(Instant.parse("2026-11-30T19:59:59Z"));
        assertThat(bytes.position().shardId()).isEqualTo("shardId-000000000003");
        assertThat(bytes.partitionKey()).isEqualTo("p");
        assertThat(Records.on("s").at("1", new byte[0]).partitionKey()).isEqualTo(Records.PARTITION_KEY);
    }
}
