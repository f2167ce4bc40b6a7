package dev.sluice.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.kcl.worker.KclRecords;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.kinesis.retrieval.KinesisClientRecord;

class KclRecordsTest {

    private static final String SEQUENCE = "49590338271490256608559692538361571095921575989136588898";

    @Test
    void plainRecordHasTheLambdaPathsPosition() {
        KinesisClientRecord record = KinesisClientRecord.builder()
                .sequenceNumber(SEQUENCE)
                .partitionKey("page-7")
                .data(ByteBuffer.wrap("{\"a\":1}".getBytes(StandardCharsets.UTF_8)))
                .approximateArrivalTimestamp(Instant.parse("2026-11-30T10:00:00Z"))
                .build();

        InboundRecord inbound = KclRecords.toInbound("clicks-by-page", "shardId-000000000001", record);

        assertThat(inbound.position()).isEqualTo(Position.of("shardId-000000000001", SEQUENCE));
        assertThat(inbound.stream()).isEqualTo("clicks-by-page");
        assertThat(inbound.partitionKey()).isEqualTo("page-7");
        assertThat(new String(inbound.data(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        assertThat(inbound.arrivedAt()).isEqualTo(Instant.parse("2026-11-30T10:00:00Z"));
    }

    @Test
    void deaggregatedRecordsKeepTheirSubSequenceAndOrder() {
        List<KinesisClientRecord> records = List.of(aggregated(0), aggregated(1), aggregated(2));

        List<InboundRecord> inbound = KclRecords.toInbound("s", "shardId-000000000000", records);

        assertThat(inbound)
                .extracting(InboundRecord::position)
                .containsExactly(
                        new Position("shardId-000000000000", SEQUENCE, 0),
                        new Position("shardId-000000000000", SEQUENCE, 1),
                        new Position("shardId-000000000000", SEQUENCE, 2))
                .isSorted();
    }

    @Test
    void dataIsCopiedWithoutConsumingTheBuffer() {
        ByteBuffer data = ByteBuffer.wrap(new byte[] {1, 2, 3});
        KinesisClientRecord record = KinesisClientRecord.builder()
                .sequenceNumber("1")
                .partitionKey("k")
                .data(data)
                .build();

        assertThat(KclRecords.toInbound("s", "shardId-0", record).data()).containsExactly(1, 2, 3);
        assertThat(data.remaining()).isEqualTo(3);
    }

    private static KinesisClientRecord aggregated(long sub) {
        return KinesisClientRecord.builder()
                .sequenceNumber(SEQUENCE)
                .subSequenceNumber(sub)
                .aggregated(true)
                .partitionKey("k" + sub)
                .data(ByteBuffer.wrap(new byte[] {(byte) sub}))
                .build();
    }
}
