package dev.sluice.aws.kpl;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.sluice.core.event.KplFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The KPL aggregated record format, both ways: {@code F3 89 9A C2}, the protobuf {@code
 * AggregatedRecord}, the MD5 digest of the protobuf bytes (<a
 * href="https://github.com/awslabs/amazon-kinesis-producer/blob/master/aggregation-format.md">aggregation-format.md</a>):
 *
 * <pre>
 * message AggregatedRecord {
 *   repeated string partition_key_table     = 1;
 *   repeated string explicit_hash_key_table = 2;
 *   repeated Record records                 = 3;
 * }
 * message Record {
 *   required uint64 partition_key_index     = 1;
 *   optional uint64 explicit_hash_key_index = 2;
 *   required bytes  data                    = 3;
 *   repeated Tag    tags                    = 4;   // read past, never written
 * }
 * </pre>
 *
 * Read and written with protobuf-java's {@link CodedInputStream} / {@link CodedOutputStream} (on the
 * classpath already, through CEL): the three messages are small and stable, so a hand decoder is
 * shorter than a generated one and needs no {@code protoc} in the build. The maintained
 * de-aggregation library ({@code com.amazonaws:amazon-kinesis-deaggregator}) is built on the KCL
 * (1.x with SDK v1, or 2.x): too much for the Lambda zip.
 */
public final class KplAggregates {

    private static final int MAGIC_BYTES = KplFormat.magic().length;

    /** The most user records in one aggregate: a position's sub-sequence is at most 99,999. */
    public static final int MAX_RECORDS = 100_000;

    private KplAggregates() {}

    /**
     * The user records of an aggregate, in order (the i-th has sub-sequence i).
     *
     * @throws MalformedAggregateException if {@code data} lacks the magic bytes, its digest does not
     *     match, or the protobuf does not decode into records whose indexes name table entries
     */
    public static List<UserRecord> decode(byte[] data) throws MalformedAggregateException {
        if (!KplFormat.hasMagic(data)) {
            throw new MalformedAggregateException("no KPL magic bytes");
        }
        if (data.length < MAGIC_BYTES + KplFormat.DIGEST_BYTES) {
            throw new MalformedAggregateException(KplFormat.diagnose(data));
        }
        if (!KplFormat.digestMatches(data)) {
            throw new MalformedAggregateException(KplFormat.diagnose(data));
        }
        try {
            return parse(CodedInputStream.newInstance(
                    data, MAGIC_BYTES, data.length - MAGIC_BYTES - KplFormat.DIGEST_BYTES));
        } catch (InvalidProtocolBufferException e) {
            throw new MalformedAggregateException("protobuf AggregatedRecord does not decode: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new MalformedAggregateException("protobuf AggregatedRecord does not decode: " + e, e);
        }
    }

    private record Indexed(long partitionKey, long explicitHashKey, byte[] data) {}

    private static List<UserRecord> parse(CodedInputStream in) throws IOException, MalformedAggregateException {
        List<String> partitionKeys = new ArrayList<>();
        List<String> hashKeys = new ArrayList<>();
        List<Indexed> records = new ArrayList<>();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            int field = WireFormat.getTagFieldNumber(tag);
            if (field >= 1 && field <= 3) {
                expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "AggregatedRecord");
            }
            switch (field) {
                case 1 -> partitionKeys.add(in.readStringRequireUtf8());
                case 2 -> hashKeys.add(in.readStringRequireUtf8());
                case 3 -> {
                    int limit = in.pushLimit(in.readRawVarint32());
                    records.add(record(in));
                    in.popLimit(limit);
                    if (records.size() > MAX_RECORDS) {
                        throw new MalformedAggregateException("more than " + MAX_RECORDS + " user records");
                    }
                }
                default -> in.skipField(tag);
            }
        }
        if (records.isEmpty()) {
            throw new MalformedAggregateException("an AggregatedRecord without records");
        }
        List<UserRecord> users = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            Indexed r = records.get(i);
            if (r.partitionKey() >= partitionKeys.size()) {
                throw new MalformedAggregateException("record " + i + " names partition key " + r.partitionKey()
                        + " of a table of " + partitionKeys.size());
            }
            if (r.explicitHashKey() >= hashKeys.size()) {
                throw new MalformedAggregateException("record " + i + " names explicit hash key " + r.explicitHashKey()
                        + " of a table of " + hashKeys.size());
            }
            users.add(new UserRecord(
                    partitionKeys.get((int) r.partitionKey()),
                    r.explicitHashKey() < 0 ? null : hashKeys.get((int) r.explicitHashKey()),
                    r.data()));
        }
        return users;
    }

    private static Indexed record(CodedInputStream in) throws IOException, MalformedAggregateException {
        long partitionKey = -1;
        long hashKey = -1;
        byte[] data = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> {
                    expect(tag, WireFormat.WIRETYPE_VARINT, "Record");
                    partitionKey = index(in.readUInt64(), "partition_key_index");
                }
                case 2 -> {
                    expect(tag, WireFormat.WIRETYPE_VARINT, "Record");
                    hashKey = index(in.readUInt64(), "explicit_hash_key_index");
                }
                case 3 -> {
                    expect(tag, WireFormat.WIRETYPE_LENGTH_DELIMITED, "Record");
                    data = in.readByteArray();
                }
                default -> in.skipField(tag);
            }
        }
        if (partitionKey < 0 || data == null) {
            throw new MalformedAggregateException(
                    "a Record without its required " + (data == null ? "data" : "partition_key_index"));
        }
        return new Indexed(partitionKey, hashKey, data);
    }

    private static long index(long value, String name) throws MalformedAggregateException {
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new MalformedAggregateException(name + " out of range: " + Long.toUnsignedString(value));
        }
        return value;
    }

    private static void expect(int tag, int wireType, String message) throws MalformedAggregateException {
        if (WireFormat.getTagWireType(tag) != wireType) {
            throw new MalformedAggregateException("field " + WireFormat.getTagFieldNumber(tag) + " of " + message
                    + " has wire type " + WireFormat.getTagWireType(tag) + ", expected " + wireType);
        }
    }

    /** An aggregate of these user records (at least one), partition keys and hash keys shared in tables. */
    public static byte[] encode(List<UserRecord> records) {
        if (records.isEmpty() || records.size() > MAX_RECORDS) {
            throw new IllegalArgumentException(
                    "an aggregate holds 1 to " + MAX_RECORDS + " records, not " + records.size());
        }
        Map<String, Integer> partitionKeys = new HashMap<>();
        Map<String, Integer> hashKeys = new HashMap<>();
        List<String> partitionTable = new ArrayList<>();
        List<String> hashTable = new ArrayList<>();
        for (UserRecord r : records) {
            partitionKeys.computeIfAbsent(r.partitionKey(), k -> {
                partitionTable.add(k);
                return partitionTable.size() - 1;
            });
            if (r.explicitHashKey() != null) {
                hashKeys.computeIfAbsent(r.explicitHashKey(), k -> {
                    hashTable.add(k);
                    return hashTable.size() - 1;
                });
            }
        }
        int size = 0;
        for (String key : partitionTable) {
            size += CodedOutputStream.computeStringSize(1, key);
        }
        for (String key : hashTable) {
            size += CodedOutputStream.computeStringSize(2, key);
        }
        int[] recordSizes = new int[records.size()];
        for (int i = 0; i < records.size(); i++) {
            UserRecord r = records.get(i);
            int recordSize = CodedOutputStream.computeUInt64Size(1, partitionKeys.get(r.partitionKey()))
                    + (r.explicitHashKey() == null
                            ? 0
                            : CodedOutputStream.computeUInt64Size(2, hashKeys.get(r.explicitHashKey())))
                    + CodedOutputStream.computeByteArraySize(3, r.data());
            recordSizes[i] = recordSize;
            size += CodedOutputStream.computeTagSize(3)
                    + CodedOutputStream.computeUInt32SizeNoTag(recordSize)
                    + recordSize;
        }
        byte[] out = new byte[MAGIC_BYTES + size + KplFormat.DIGEST_BYTES];
        System.arraycopy(KplFormat.magic(), 0, out, 0, MAGIC_BYTES);
        CodedOutputStream protobuf = CodedOutputStream.newInstance(out, MAGIC_BYTES, size);
        try {
            for (String key : partitionTable) {
                protobuf.writeString(1, key);
            }
            for (String key : hashTable) {
                protobuf.writeString(2, key);
            }
            for (int i = 0; i < records.size(); i++) {
                UserRecord r = records.get(i);
                protobuf.writeTag(3, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                protobuf.writeUInt32NoTag(recordSizes[i]);
                protobuf.writeUInt64(1, partitionKeys.get(r.partitionKey()));
                if (r.explicitHashKey() != null) {
                    protobuf.writeUInt64(2, hashKeys.get(r.explicitHashKey()));
                }
                protobuf.writeByteArray(3, r.data());
            }
            protobuf.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] digest = KplFormat.md5(out, MAGIC_BYTES, MAGIC_BYTES + size);
        System.arraycopy(digest, 0, out, MAGIC_BYTES + size, KplFormat.DIGEST_BYTES);
        return out;
    }

    /** The bytes {@link #encode} adds for one more user record, beyond its new table entries. */
    static int recordOverhead(UserRecord r, int partitionKeyIndex, int hashKeyIndex) {
        int recordSize = CodedOutputStream.computeUInt64Size(1, partitionKeyIndex)
                + (r.explicitHashKey() == null ? 0 : CodedOutputStream.computeUInt64Size(2, hashKeyIndex))
                + CodedOutputStream.computeByteArraySize(3, r.data());
        return CodedOutputStream.computeTagSize(3) + CodedOutputStream.computeUInt32SizeNoTag(recordSize) + recordSize;
    }

    /** The bytes of a partition-key or explicit-hash-key table entry. */
    static int tableEntrySize(String key) {
        return CodedOutputStream.computeStringSize(1, key);
    }

    /** The bytes an aggregate adds around its protobuf: magic and digest. */
    static int envelopeSize() {
        return MAGIC_BYTES + KplFormat.DIGEST_BYTES;
    }

    /** UTF-8 length of a string. */
    static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
