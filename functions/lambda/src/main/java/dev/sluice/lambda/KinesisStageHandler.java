package dev.sluice.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.sluice.aws.AwsClients;
import dev.sluice.aws.FunctionEnvironment;
import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.kpl.Deaggregation;
import dev.sluice.aws.kpl.ShardMap;
import dev.sluice.aws.kpl.ShardMapCache;
import dev.sluice.aws.metrics.EmfMetrics;
import dev.sluice.core.event.InboundRecord;
import dev.sluice.core.event.Position;
import dev.sluice.core.stage.BatchProcessor;
import dev.sluice.core.stage.BatchResult;
import dev.sluice.lambda.snapstart.SnapStartPriming;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The Lambda handler of a {@code consumer: lambda} stage, behind a Kinesis event-source mapping
 * with {@code ReportBatchItemFailures}. It only translates: Lambda's batch in, the stage's
 * {@link BatchProcessor} in the middle, {@code batchItemFailures} out. Bad records never fail the
 * batch (they go to the dead-letter queue); if a sink cannot make the batch durable, the first
 * record to redeliver is reported and Lambda retries from there. KPL-aggregated records are
 * de-aggregated first; Lambda redelivers a whole Kinesis record, so a failure in the middle of an
 * aggregate reports the aggregate's sequence number and the sinks absorb its user records that
 * already took effect (each is keyed by its sub-sequence).
 */
public class KinesisStageHandler implements RequestHandler<KinesisEvent, StreamsEventResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(KinesisStageHandler.class);

    private final BatchProcessor processor;
    private final String stage;
    private final EmfMetrics metrics;

    /** The SnapStart hook, held here: the CRaC context may keep only a weak reference to it. */
    private SnapStartPriming priming;

    /**
     * Used by the Lambda runtime: wires the stage from the function's environment and registers its
     * SnapStart hook ({@link SnapStartPriming}: primes before the snapshot, re-seeds after a restore).
     */
    public KinesisStageHandler() {
        this(StageRuntime.fromEnvironment(FunctionEnvironment.current()), FunctionEnvironment.current(), true);
    }

    private KinesisStageHandler(StageRuntime runtime, Map<String, String> environment, boolean snapStart) {
        this(runtime, environment);
        if (snapStart) {
            this.priming = SnapStartPriming.register(runtime, environment);
        }
    }

    public KinesisStageHandler(StageRuntime runtime, Map<String, String> environment) {
        this(
                runtime.processor(),
                runtime.pipeline().pipeline() + "/" + runtime.stageName(),
                EmfMetrics.fromEnvironment(environment, runtime.pipeline().pipeline(), runtime.stageName()),
                () -> new AwsClients(environment).kinesis());
    }

    /** A handler that does not check aggregates against their shard's range (tests without Kinesis). */
    public KinesisStageHandler(BatchProcessor processor, String stage, EmfMetrics metrics) {
        this(processor, stage, metrics, null);
    }

    /**
     * @param kinesis the client that lists the input stream's shards ({@code kinesis:ListShards},
     *     granted for the event-source mapping), made at the first aggregate seen; null: not checked
     */
    public KinesisStageHandler(
            BatchProcessor processor, String stage, EmfMetrics metrics, Supplier<KinesisClient> kinesis) {
        this.processor = processor;
        this.stage = stage;
        this.metrics = metrics;
        this.kinesis = kinesis;
    }

    private final Supplier<KinesisClient> kinesis;
    private final Map<String, ShardMapCache> shardMaps = new ConcurrentHashMap<>();
    private volatile KinesisClient kinesisClient;

    /** The range of a shard of a stream: from the kept map, listed again only for a shard it does not name. */
    private ShardMap.Range range(String stream, String shardId) {
        KinesisClient client = kinesisClient;
        if (client == null) {
            synchronized (this) {
                if (kinesisClient == null) {
                    kinesisClient = kinesis.get();
                }
                client = kinesisClient;
            }
        }
        KinesisClient c = client;
        return shardMaps.computeIfAbsent(stream, s -> new ShardMapCache(c, s)).range(shardId);
    }

    /** The SnapStart hook this instance registered (the runtime's no-arg constructor only). */
    SnapStartPriming priming() {
        return priming;
    }

    @Override
    public StreamsEventResponse handleRequest(KinesisEvent event, Context context) {
        // KPL aggregates become their user records (sub-sequence positions); a corrupt one stays whole
        // an aggregate holding a record outside its shard's range is dropped whole, as the KCL does; a
        // failure to list the shards fails the whole batch (delivered again, never partly processed)
        List<InboundRecord> records = Deaggregation.of(toInbound(event), kinesis == null ? null : this::range);
        if (records.isEmpty()) {
            return new StreamsEventResponse(List.of());
        }
        Position first = records.get(0).position();
        MDC.put("shardId", first.shardId());
        MDC.put("sequenceNumber", first.sequenceNumber());
        try {
            BatchResult result = processor.process(records);
            LOG.info(
                    "stage={} shard={} records={} accepted={} deadLettered={} sinks={} complete={}",
                    stage,
                    first.shardId(),
                    result.received(),
                    result.accepted(),
                    result.deadLettered(),
                    result.sinks(),
                    result.complete());
            metrics.batch(
                    first.shardId(),
                    first.sequenceNumber(),
                    records.get(records.size() - 1).position().sequenceNumber(),
                    result);
            List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>(1);
            result.failedFrom()
                    .ifPresent(p -> failures.add(new StreamsEventResponse.BatchItemFailure(p.sequenceNumber())));
            return new StreamsEventResponse(failures);
        } finally {
            MDC.remove("shardId");
            MDC.remove("sequenceNumber");
        }
    }

    static List<InboundRecord> toInbound(KinesisEvent event) {
        if (event == null || event.getRecords() == null) {
            return List.of();
        }
        List<InboundRecord> records = new ArrayList<>(event.getRecords().size());
        for (KinesisEvent.KinesisEventRecord r : event.getRecords()) {
            KinesisEvent.Record kinesis = r.getKinesis();
            records.add(new InboundRecord(
                    streamName(r.getEventSourceARN()),
                    Position.of(shardId(r.getEventID()), kinesis.getSequenceNumber()),
                    kinesis.getPartitionKey(),
                    bytes(kinesis.getData()),
                    kinesis.getApproximateArrivalTimestamp() == null
                            ? null
                            : Instant.ofEpochMilli(
                                    kinesis.getApproximateArrivalTimestamp().getTime())));
        }
        return records;
    }

    /** {@code arn:aws:kinesis:eu-west-1:123456789012:stream/payments-raw} → {@code payments-raw}. */
    static String streamName(String eventSourceArn) {
        if (eventSourceArn == null) {
            return "unknown";
        }
        int slash = eventSourceArn.indexOf(":stream/");
        return slash < 0 ? eventSourceArn : eventSourceArn.substring(slash + ":stream/".length());
    }

    /** {@code shardId-000000000000:4959...} → {@code shardId-000000000000}. */
    static String shardId(String eventId) {
        int colon = eventId.indexOf(':');
        return colon < 0 ? eventId : eventId.substring(0, colon);
    }

    private static byte[] bytes(ByteBuffer data) {
        ByteBuffer copy = data.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }
}
