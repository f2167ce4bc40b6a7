package dev.sluice.lambda.sink;

import dev.sluice.core.event.Position;
import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Newline-delimited, gzip-compressed JSON objects in the lake, partitioned by event date and hour.
 * Object keys are deterministic — stream, shard and the first position in the object — and written
 * with {@code If-None-Match: *}. When a batch is delivered again, the object it wrote before
 * already exists: it is adopted (its last position read from its metadata) and only the records
 * after it are written, in a new object keyed by the first of them. Every record lands in exactly
 * one object.
 */
public final class S3LakeSink implements EventSink {

    /** Object metadata: the last position in the object (sortable form). */
    public static final String LAST_POSITION = "sluice-last-position";
    /** Object metadata: how many records the object holds. */
    public static final String RECORD_COUNT = "sluice-records";

    private final S3Client s3;
    private final String bucket;
    private final String prefix;

    public S3LakeSink(S3Client s3, String bucket, String prefix) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    @Override
    public String name() {
        return "lake:" + bucket + "/" + prefix;
    }

    @Override
    public SinkReport write(List<ProcessedEvent> events) throws SinkException {
        int applied = 0;
        int absorbed = 0;
        for (List<ProcessedEvent> partition : byHour(events).values()) {
            int from = 0;
            while (from < partition.size()) {
                List<ProcessedEvent> rest = partition.subList(from, partition.size());
                String key = key(rest.get(0));
                if (put(key, rest)) {
                    applied += rest.size();
                    break;
                }
                // the object exists from an earlier delivery: adopt it, write only what follows it
                int covered = coveredBy(key, rest);
                if (covered == 0) {
                    throw new SinkException(
                            "s3://" + bucket + "/" + key + " ends before its own first record", false, null);
                }
                absorbed += covered;
                from += covered;
            }
        }
        return new SinkReport(applied, absorbed);
    }

    /** The object key for records starting at this event. */
    public String key(ProcessedEvent first) {
        ZonedDateTime at = first.occurredAt().atZone(ZoneOffset.UTC);
        Position position = first.position();
        return String.format(
                "%sdt=%04d-%02d-%02d/hr=%02d/%s-%s-%s.jsonl.gz",
                prefix,
                at.getYear(),
                at.getMonthValue(),
                at.getDayOfMonth(),
                at.getHour(),
                first.source().stream(),
                position.shardId(),
                position.sortable());
    }

    private static Map<String, List<ProcessedEvent>> byHour(List<ProcessedEvent> events) {
        Map<String, List<ProcessedEvent>> partitions = new LinkedHashMap<>();
        for (ProcessedEvent event : events) {
            ZonedDateTime at = event.occurredAt().atZone(ZoneOffset.UTC);
            String hour = at.toLocalDate() + "T" + at.getHour();
            partitions.computeIfAbsent(hour, h -> new ArrayList<>()).add(event);
        }
        return partitions;
    }

    /** Writes the object unless it exists; {@code false} if it did. */
    private boolean put(String key, List<ProcessedEvent> records) throws SinkException {
        PutObjectRequest request = PutObjectRequest.builder()
                .bucket(bucket)
                .key(key)
                .ifNoneMatch("*")
                .contentType("application/x-ndjson")
                .contentEncoding("gzip")
                .metadata(Map.of(
                        LAST_POSITION,
                                records.get(records.size() - 1).position().sortable(),
                        RECORD_COUNT, Integer.toString(records.size())))
                .build();
        try {
            s3.putObject(request, RequestBody.fromBytes(gzipLines(records)));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return false;
            }
            throw SdkErrors.classify("put s3://" + bucket + "/" + key, e);
        } catch (SdkException e) {
            throw SdkErrors.classify("put s3://" + bucket + "/" + key, e);
        }
    }

    /** How many of {@code records} the existing object {@code key} already holds. */
    private int coveredBy(String key, List<ProcessedEvent> records) throws SinkException {
        HeadObjectResponse head;
        try {
            head = s3.headObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            throw SdkErrors.classify("head s3://" + bucket + "/" + key, e);
        }
        String last = head.metadata().get(LAST_POSITION);
        if (last == null) {
            throw new SinkException(
                    "s3://" + bucket + "/" + key + " exists but was not written by Sluice", false, null);
        }
        int covered = 0;
        while (covered < records.size()
                && records.get(covered).position().sortable().compareTo(last) <= 0) {
            covered++;
        }
        return covered;
    }

    private static byte[] gzipLines(List<ProcessedEvent> records) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(records.size() * 256);
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            for (ProcessedEvent record : records) {
                gzip.write(record.event().toString().getBytes(StandardCharsets.UTF_8));
                gzip.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
