package dev.sluice.aws.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.event.ProcessedEvent;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.SinkException;
import dev.sluice.core.stage.SinkReport;
import dev.sluice.emulators.FaultInjector;
import dev.sluice.emulators.FaultInjector.Fault;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A write whose outcome is unknown — sent, maybe applied, response lost — is made again with the
 * same idempotent request, never assumed lost and never applied twice.
 */
@ExtendWith(LocalAwsExtension.class)
class AmbiguousWritesIT {

    private static final ExecutorService WRITERS = Executors.newFixedThreadPool(2);

    @AfterAll
    static void stopWriters() {
        WRITERS.shutdownNow();
    }

    private static DynamoDbClient dynamoDb(LocalAws aws, FaultInjector faults) {
        return DynamoDbClient.builder()
                .endpointOverride(aws.dynamoDbEndpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(faults))
                .build();
    }

    private static S3Client s3(LocalAws aws, FaultInjector faults) {
        return S3Client.builder()
                .endpointOverride(aws.s3Endpoint())
                .region(aws.region())
                .credentialsProvider(aws.credentialsProvider())
                .forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(faults))
                .build();
    }

    private static String table(LocalAws aws, ResourceNames names) {
        return Tables.create(aws, names.name("state"), "pk");
    }

    /** Writes like the event-source mapping delivers: again after a retryable failure. */
    private static SinkReport deliverUntilDurable(EventSink sink, List<ProcessedEvent> events) throws SinkException {
        SinkReport total = SinkReport.EMPTY;
        for (int delivery = 1; delivery <= 5; delivery++) {
            try {
                SinkReport report = sink.write(events);
                return new SinkReport(
                        total.applied() + report.applied(), total.absorbedDuplicates() + report.absorbedDuplicates());
            } catch (SinkException e) {
                assertThat(e.retryable())
                        .as("an unknown outcome is retryable: %s", e.getMessage())
                        .isTrue();
            }
        }
        throw new AssertionError("not durable after 5 deliveries");
    }

    @Test
    void tableWriteWhoseResponseWasLostTakesEffectOnce(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        FaultInjector faults = new FaultInjector().on("PutItem", 1, Fault.RESPONSE_LOST);
        DynamoDbStateSink sink = new DynamoDbStateSink(dynamoDb(aws, faults), table, "eventId", WRITERS);
        List<ProcessedEvent> event =
                List.of(SinksIT.event("shardId-000000000000", 1000, "pay-lost-1", "cust-1", "2026-11-30T10:00:00Z"));

        SinkReport report = deliverUntilDurable(sink, event);

        assertThat(faults.fired()).hasSize(1);
        assertThat(faults.calls("PutItem")).isGreaterThanOrEqualTo(2);
        // the first attempt was applied; the repeat of the same conditional write is absorbed
        assertThat(report).isEqualTo(new SinkReport(0, 1));
        assertThat(aws.dynamoDb().scan(b -> b.tableName(table)).count()).isEqualTo(1);
    }

    @Test
    void tableWriteThatNeverLeftIsAppliedByTheRetry(LocalAws aws, ResourceNames names) throws SinkException {
        String table = table(aws, names);
        FaultInjector faults = new FaultInjector().on("PutItem", 1, Fault.NOT_SENT);
        DynamoDbStateSink sink = new DynamoDbStateSink(dynamoDb(aws, faults), table, "eventId", WRITERS);

        SinkReport report = deliverUntilDurable(
                sink,
                List.of(SinksIT.event("shardId-000000000000", 1001, "pay-unsent-1", "cust-1", "2026-11-30T10:00:00Z")));

        assertThat(faults.fired()).hasSize(1);
        assertThat(report).isEqualTo(new SinkReport(1, 0));
        assertThat(aws.dynamoDb().scan(b -> b.tableName(table)).count()).isEqualTo(1);
    }

    @Test
    void lakeObjectWhoseResponseWasLostIsAdoptedNotWrittenTwice(LocalAws aws, ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        FaultInjector faults = new FaultInjector().on("PutObject", 1, Fault.RESPONSE_LOST);
        S3LakeSink lake =
                new S3LakeSink(s3(aws, faults), bucket, "payments/", aws.dynamoDb(), SinksIT.ledger(aws, names));
        List<ProcessedEvent> batch = SinksIT.batch(0, 6, "2026-11-30T10");

        SinkReport report = deliverUntilDurable(lake, batch);

        assertThat(faults.fired()).hasSize(1);
        assertThat(report).isEqualTo(new SinkReport(0, 6));
        var keys = aws.s3().listObjectsV2(b -> b.bucket(bucket)).contents();
        assertThat(keys).hasSize(1);
    }

    @Test
    void lakeCommitWhoseResponseWasLostIsAdoptedByTheNextDelivery(LocalAws aws, ResourceNames names) throws Exception {
        String bucket = names.name("lake");
        aws.s3().createBucket(b -> b.bucket(bucket));
        // the first ledger write records the intent, the second commits the object: its response is lost
        FaultInjector faults = new FaultInjector().on("UpdateItem", 2, Fault.RESPONSE_LOST);
        S3LakeSink lake =
                new S3LakeSink(aws.s3(), bucket, "payments/", dynamoDb(aws, faults), SinksIT.ledger(aws, names));

        SinkReport report = deliverUntilDurable(lake, SinksIT.batch(0, 6, "2026-11-30T10"));

        assertThat(faults.fired()).hasSize(1);
        // the delivery failed; the next one finds the intent, sees its object and commits it: all absorbed
        assertThat(report).isEqualTo(new SinkReport(0, 6));
        assertThat(faults.calls("GetItem")).isGreaterThanOrEqualTo(1);
        assertThat(SinksIT.eventIds(aws, bucket, SinksIT.keys(aws, bucket)))
                .containsExactly("pay-0", "pay-1", "pay-2", "pay-3", "pay-4", "pay-5");
    }
}
