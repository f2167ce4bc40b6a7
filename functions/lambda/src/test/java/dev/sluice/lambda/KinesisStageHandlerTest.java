package dev.sluice.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.aws.FunctionEnvironment;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.core.ConfigurationException;
import dev.sluice.core.event.DeadLetter;
import dev.sluice.core.event.Position;
import dev.sluice.core.event.ReasonCode;
import dev.sluice.core.stage.AggregateSink;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.DeadLetterSink;
import dev.sluice.core.stage.EventSink;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.testing.MemoryAggregates;
import dev.sluice.core.testing.MemorySink;
import dev.sluice.core.testing.Stages;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The handler on a real Kinesis event, read through Lambda's own deserialisation, with in-memory sinks. */
class KinesisStageHandlerTest {

    private final MemorySink sink = new MemorySink();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    private final List<String> metrics = new ArrayList<>();
    private final KinesisStageHandler handler = handler(sink, deadLetters::addAll, metrics::add);

    static KinesisStageHandler handler(EventSink sink, DeadLetterSink dlq, Consumer<String> metrics) {
        StageChain chain = Stages.compile("payments", "validate", StageRuntime.mapper(), Clock.systemUTC());
        // the payments stage also aggregates spend per currency per hour: partials go to memory
        AggregateSink aggregates = new MemoryAggregates();
        return new KinesisStageHandler(
                new BatchProcessor(chain, Map.of(sink.name(), sink), aggregates, dlq),
                "payments/validate",
                new EmfMetrics("payments", "validate", metrics, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC)));
    }

    static KinesisEvent fixture() throws Exception {
        try (InputStream in = KinesisStageHandlerTest.class.getResourceAsStream("/kinesis-event-payments.json")) {
            return LambdaEventSerializers.serializerFor(
                            KinesisEvent.class, KinesisStageHandlerTest.class.getClassLoader())
                    .fromJson(in);
        }
    }

    @Test
    void badRecordsGoToTheDeadLetterQueueAndDoNotFailTheBatch() throws Exception {
        StreamsEventResponse response = handler.handleRequest(fixture(), null);

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(sink.written()).singleElement().satisfies(e -> {
            assertThat(e.eventId()).isEqualTo("pay-7f3c2a9e1b");
            assertThat(e.position().shardId()).isEqualTo("shardId-000000000001");
            assertThat(e.source().stream()).isEqualTo("payments-raw");
            assertThat(e.event().at("/payload/amount").decimalValue()).isEqualByComparingTo("42.95");
            assertThat(e.event().at("/payload/cardNumber").asText()).isEqualTo("************1111");
        });
        assertThat(deadLetters)
                .extracting(DeadLetter::code)
                .containsExactly(ReasonCode.MALFORMED_JSON, ReasonCode.SCHEMA_INVALID);
        assertThat(deadLetters.get(1).reason())
                .isEqualTo("SCHEMA_INVALID: $.payload.amount: must have an exclusive minimum value of 0"
                        + " (exclusiveMinimum)");
        assertThat(deadLetters.get(1).source().position().sequenceNumber())
                .isEqualTo("49656830487293650285937458114926636691014850804705771538");
    }

    @Test
    void sinkFailureReportsTheFirstRecordSoLambdaRetriesTheBatch() throws Exception {
        sink.failNext(Integer.MAX_VALUE);

        StreamsEventResponse response = handler.handleRequest(fixture(), null);

        assertThat(response.getBatchItemFailures())
                .extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .containsExactly("49656830487293650285937458114924218839375621546356359186");
        assertThat(deadLetters).isEmpty();
    }

    private static final String AGGREGATE_SEQUENCE = "49656830487293650285937458114926636691014850804705779999";
    private static final String CORRUPT_SEQUENCE = "49656830487293650285937458114926636691014850804705780000";

    /** One KPL aggregate of three payments (two customers), then a corrupt aggregate, on shard 1. */
    static KinesisEvent aggregated() {
        byte[] aggregate = dev.sluice.aws.kpl.KplAggregates.encode(List.of(
                new dev.sluice.aws.kpl.UserRecord(
                        "cust-0000001",
                        dev.sluice.core.testing.Events.payment()
                                .eventId("kpl-evt-0")
                                .at(Instant.now())
                                .customer("cust-0000001")
                                .bytes()),
                new dev.sluice.aws.kpl.UserRecord(
                        "cust-0000002",
                        dev.sluice.core.testing.Events.payment()
                                .eventId("kpl-evt-1")
                                .at(Instant.now())
                                .customer("cust-0000002")
                                .bytes()),
                new dev.sluice.aws.kpl.UserRecord(
                        "cust-0000001",
                        dev.sluice.core.testing.Events.payment()
                                .eventId("kpl-evt-2")
                                .at(Instant.now())
                                .customer("cust-0000001")
                                .bytes())));
        byte[] corrupt = aggregate.clone();
        corrupt[corrupt.length - 1] ^= 1;
        KinesisEvent event = new KinesisEvent();
        event.setRecords(List.of(record(AGGREGATE_SEQUENCE, aggregate), record(CORRUPT_SEQUENCE, corrupt)));
        return event;
    }

    private static KinesisEvent.KinesisEventRecord record(String sequence, byte[] data) {
        KinesisEvent.Record kinesis = new KinesisEvent.Record();
        kinesis.setSequenceNumber(sequence);
        kinesis.setPartitionKey("cust-1");
        kinesis.setData(java.nio.ByteBuffer.wrap(data));
        KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
        r.setKinesis(kinesis);
        r.setEventID("shardId-000000000001:" + sequence);
        r.setEventSourceARN("arn:aws:kinesis:eu-west-1:123456789012:stream/payments-raw");
        return r;
    }

    @Test
    void aKplAggregateIsProcessedAsItsUserRecordsAndACorruptOneIsDeadLetteredWhole() {
        KinesisEvent event = aggregated();

        StreamsEventResponse response = handler.handleRequest(event, null);

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(sink.written())
                .extracting(e -> e.eventId(), e -> e.position(), e -> e.source().partitionKey())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "kpl-evt-0",
                                new Position("shardId-000000000001", AGGREGATE_SEQUENCE, 0),
                                "cust-0000001"),
                        org.assertj.core.groups.Tuple.tuple(
                                "kpl-evt-1",
                                new Position("shardId-000000000001", AGGREGATE_SEQUENCE, 1),
                                "cust-0000002"),
                        org.assertj.core.groups.Tuple.tuple(
                                "kpl-evt-2",
                                new Position("shardId-000000000001", AGGREGATE_SEQUENCE, 2),
                                "cust-0000001"));
        assertThat(deadLetters).singleElement().satisfies(letter -> {
            assertThat(letter.code()).isEqualTo(ReasonCode.MALFORMED_AGGREGATE);
            assertThat(letter.source().position()).isEqualTo(Position.of("shardId-000000000001", CORRUPT_SEQUENCE));
            assertThat(letter.source().data())
                    .isEqualTo(bytesOf(event.getRecords().get(1).getKinesis().getData()));
        });
    }

    @Test
    void aFailureInsideAnAggregateRedeliversTheWholeKinesisRecord() {
        sink.failNext(Integer.MAX_VALUE);

        StreamsEventResponse response = handler.handleRequest(aggregated(), null);

        assertThat(response.getBatchItemFailures())
                .extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .containsExactly(AGGREGATE_SEQUENCE);
    }

    private static byte[] bytesOf(java.nio.ByteBuffer buffer) {
        java.nio.ByteBuffer copy = buffer.duplicate();
        copy.rewind();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    @Test
    void eachBatchPublishesItsFiguresInEmbeddedMetricFormat() throws Exception {
        handler.handleRequest(fixture(), null);
        sink.failNext(Integer.MAX_VALUE);
        handler.handleRequest(fixture(), null);

        assertThat(metrics).hasSize(2);
        JsonNode done = new ObjectMapper().readTree(metrics.get(0));
        assertThat(done.at("/_aws/CloudWatchMetrics/0/Namespace").asText()).isEqualTo("Sluice");
        assertThat(done.at("/_aws/CloudWatchMetrics/0/Dimensions/0").toString()).isEqualTo("[\"pipeline\",\"stage\"]");
        assertThat(done.at("/_aws/CloudWatchMetrics/0/Metrics"))
                .extracting(m -> m.get("Name").asText())
                .contains(EmfMetrics.ABSORBED_DUPLICATES, EmfMetrics.DEAD_LETTERED);
        assertThat(done.get("stage").asText()).isEqualTo("validate");
        assertThat(done.get(EmfMetrics.RECORDS).asInt()).isEqualTo(3);
        assertThat(done.get(EmfMetrics.ACCEPTED).asInt()).isEqualTo(1);
        assertThat(done.get(EmfMetrics.DEAD_LETTERED).asInt()).isEqualTo(2);
        assertThat(done.get(EmfMetrics.APPLIED).asInt())
                .as("one event in the sink, one counted in the aggregate")
                .isEqualTo(2);
        assertThat(done.at("/sinks/memory/applied").asInt()).isEqualTo(1);
        assertThat(done.get(EmfMetrics.FAILED_BATCHES).asInt()).isZero();
        JsonNode failed = new ObjectMapper().readTree(metrics.get(1));
        assertThat(failed.get(EmfMetrics.FAILED_BATCHES).asInt()).isEqualTo(1);
        assertThat(done.get("firstSequenceNumber").asText())
                .as("the positions the batch covered, for end-to-end latency")
                .isEqualTo(fixture().getRecords().get(0).getKinesis().getSequenceNumber());
        assertThat(done.get("lastSequenceNumber").asText())
                .isEqualTo(fixture().getRecords().get(2).getKinesis().getSequenceNumber());
        assertThat(done.has("failedFromSequenceNumber")).isFalse();
        assertThat(failed.has("failedFromSequenceNumber")).isTrue();
        assertThat(failed.at("/sinks/memory").isMissingNode())
                .as("the failed sink reports nothing; the aggregate, written concurrently, stands")
                .isTrue();
    }

    @Test
    void emptyEventIsAnEmptyResponse() {
        assertThat(handler.handleRequest(new KinesisEvent(), null).getBatchItemFailures())
                .isEmpty();
    }

    @Test
    void positionsComeFromEventIdAndSourceArn() {
        assertThat(KinesisStageHandler.shardId("shardId-000000000003:4965")).isEqualTo("shardId-000000000003");
        assertThat(KinesisStageHandler.streamName("arn:aws:kinesis:eu-west-1:123456789012:stream/clicks-raw"))
                .isEqualTo("clicks-raw");
    }

    @Test
    void missingConfigurationNamesTheVariable() {
        assertThatThrownBy(() -> StageRuntime.fromEnvironment(Map.of("SLUICE_PIPELINE", "payments")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessage("environment variable SLUICE_STAGE is not set");
        assertThatThrownBy(() -> StageRuntime.fromEnvironment(Map.of(
                        "SLUICE_PIPELINE", "payments",
                        "SLUICE_STAGE", "validate",
                        "AWS_REGION", "eu-west-1",
                        "AWS_ACCESS_KEY_ID", "x",
                        "AWS_SECRET_ACCESS_KEY", "y")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessage("environment variable SLUICE_LAKE_BUCKET is not set");
    }

    @Test
    void scopedEnvironmentIsSeenOnlyInsideTheScope() throws Exception {
        String seen = FunctionEnvironment.with(
                Map.of("SLUICE_STAGE", "validate"),
                () -> FunctionEnvironment.current().get("SLUICE_STAGE"));

        assertThat(seen).isEqualTo("validate");
        assertThat(FunctionEnvironment.current()).isSameAs(System.getenv());
    }
}
