package dev.sluice.aws.kpl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.KplFormat;
import dev.sluice.core.event.Position;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class KplAggregatesTest {

    private static final String SEQUENCE = "49590338271490256608559692538361571095921575989136588898";

    /**
     * An aggregate as the KPL writes it, built by hand from the protobuf wire format: tables {@code
     * ["card-1", "card-2"]}, {@code ["170141183460469231731687303715884105728"]}, three records, the
     * second with an explicit hash key, the third with a tag (which the decoder reads past).
     */
    static byte[] kplWritten() throws IOException {
        ByteArrayOutputStream protobuf = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(protobuf);
        out.writeString(1, "card-1");
        out.writeString(1, "card-2");
        out.writeString(2, "170141183460469231731687303715884105728");
        writeRecord(out, 0, -1, "{\"n\":1}", false);
        writeRecord(out, 1, 0, "{\"n\":2}", false);
        writeRecord(out, 0, -1, "{\"n\":3}", true);
        out.flush();
        return wrap(protobuf.toByteArray());
    }

    private static void writeRecord(CodedOutputStream out, int pk, int ehk, String data, boolean tag)
            throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        CodedOutputStream record = CodedOutputStream.newInstance(body);
        record.writeUInt64(1, pk);
        if (ehk >= 0) {
            record.writeUInt64(2, ehk);
        }
        record.writeByteArray(3, data.getBytes(StandardCharsets.UTF_8));
        if (tag) {
            ByteArrayOutputStream tagBody = new ByteArrayOutputStream();
            CodedOutputStream t = CodedOutputStream.newInstance(tagBody);
            t.writeString(1, "team");
            t.writeString(2, "payments");
            t.flush();
            record.writeByteArray(4, tagBody.toByteArray());
        }
        record.flush();
        out.writeByteArray(3, body.toByteArray());
    }

    static byte[] wrap(byte[] protobuf) {
        byte[] magic = KplFormat.magic();
        byte[] data = Arrays.copyOf(magic, magic.length + protobuf.length + KplFormat.DIGEST_BYTES);
        System.arraycopy(protobuf, 0, data, magic.length, protobuf.length);
        byte[] digest = KplFormat.md5(protobuf, 0, protobuf.length);
        System.arraycopy(digest, 0, data, magic.length + protobuf.length, KplFormat.DIGEST_BYTES);
        return data;
    }

    @Test
    void aKplAggregateDecodesIntoItsUserRecordsInOrderWithTheirOwnKeys() throws Exception {
        List<UserRecord> users = KplAggregates.decode(kplWritten());

        assertThat(users).extracting(UserRecord::partitionKey).containsExactly("card-1", "card-2", "card-1");
        assertThat(users)
                .extracting(UserRecord::explicitHashKey)
                .containsExactly(null, "170141183460469231731687303715884105728", null);
        assertThat(users)
                .extracting(u -> new String(u.data(), StandardCharsets.UTF_8))
                .containsExactly("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
    }

    @Test
    void aKinesisRecordBecomesOneInboundRecordPerUserRecordWithItsSubSequence() throws Exception {
        InboundRecord aggregate = new InboundRecord(
                "payments-raw", Position.of("shardId-000000000001", SEQUENCE), "card-1", kplWritten(), Instant.EPOCH);

        List<InboundRecord> records = Deaggregation.of(List.of(aggregate));

        assertThat(records)
                .extracting(InboundRecord::position)
                .containsExactly(
                        new Position("shardId-000000000001", SEQUENCE, 0),
                        new Position("shardId-000000000001", SEQUENCE, 1),
                        new Position("shardId-000000000001", SEQUENCE, 2));
        assertThat(records).extracting(InboundRecord::partitionKey).containsExactly("card-1", "card-2", "card-1");
        assertThat(records.get(1).explicitHashKey()).isEqualTo("170141183460469231731687303715884105728");
        assertThat(records).allSatisfy(r -> assertThat(r.arrivedAt()).isEqualTo(Instant.EPOCH));
    }

    @Test
    void encodedAggregatesReadBackAsWritten() throws Exception {
        List<UserRecord> users = List.of(
                new UserRecord("a", "{}".getBytes(StandardCharsets.UTF_8)),
                new UserRecord("b", "42", new byte[0]),
                new UserRecord("a", "42", new byte[] {(byte) 0xF3, 0, 1}));

        List<UserRecord> decoded = KplAggregates.decode(KplAggregates.encode(users));

        assertThat(decoded).hasSize(3);
        for (int i = 0; i < users.size(); i++) {
            assertThat(decoded.get(i).partitionKey()).isEqualTo(users.get(i).partitionKey());
            assertThat(decoded.get(i).explicitHashKey()).isEqualTo(users.get(i).explicitHashKey());
            assertThat(decoded.get(i).data()).isEqualTo(users.get(i).data());
        }
    }

    @Test
    void aBadDigestIsAMalformedAggregate() throws Exception {
        byte[] data = kplWritten();
        data[data.length - 1] ^= 1;

        assertThatThrownBy(() -> KplAggregates.decode(data))
                .isInstanceOf(MalformedAggregateException.class)
                .hasMessageContaining("MD5 digest does not match");
        assertThat(KplFormat.diagnose(data)).contains("MD5 digest does not match");
    }

    @Test
    void aTruncatedProtobufWithAMatchingDigestIsAMalformedAggregate() throws Exception {
        byte[] whole = kplWritten();
        byte[] protobuf = Arrays.copyOfRange(whole, 4, whole.length - KplFormat.DIGEST_BYTES);
        byte[] truncated = wrap(Arrays.copyOf(protobuf, protobuf.length - 3));

        assertThatThrownBy(() -> KplAggregates.decode(truncated))
                .isInstanceOf(MalformedAggregateException.class)
                .hasMessageContaining("protobuf AggregatedRecord does not decode");
    }

    @Test
    void aRecordNamingAMissingPartitionKeyIsAMalformedAggregate() throws Exception {
        ByteArrayOutputStream protobuf = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(protobuf);
        out.writeString(1, "only-key");
        writeRecord(out, 1, -1, "{}", false);
        out.flush();

        assertThatThrownBy(() -> KplAggregates.decode(wrap(protobuf.toByteArray())))
                .isInstanceOf(MalformedAggregateException.class)
                .hasMessageContaining("names partition key 1 of a table of 1");
    }

    @Test
    void aCorruptAggregateStaysWholeForTheChainToDeadLetter() throws Exception {
        byte[] data = kplWritten();
        data[10] ^= 0x55;
        InboundRecord corrupt = new InboundRecord(
                "payments-raw", Position.of("shardId-000000000001", SEQUENCE), "card-1", data, Instant.EPOCH);

        assertThat(Deaggregation.of(List.of(corrupt))).containsExactly(corrupt);
    }

    @Test
    void aRecordThatIsNotAnAggregateIsLeftAsItIs() {
        byte[] json = "{\"eventId\":\"e-1\"}".getBytes(StandardCharsets.UTF_8);
        InboundRecord plain =
                new InboundRecord("payments-raw", Position.of("shardId-000000000001", SEQUENCE), "k", json, null);

        assertThat(Deaggregation.of(List.of(plain))).containsExactly(plain);
        assertThat(KplFormat.hasMagic(json)).isFalse();
        assertThatThrownBy(() -> KplAggregates.decode(json))
                .isInstanceOf(MalformedAggregateException.class)
                .hasMessage("no KPL magic bytes");
    }

    @Test
    void theMagicBytesAreTheKplOnes() {
        assertThat(HexFormat.of().formatHex(KplFormat.magic())).isEqualTo("f3899ac2");
    }
}
