package dev.sluice.bench.handler;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Records every AWS call of every SDK client in this JVM while {@linkplain #start() recording}: its
 * service, operation, resource (table, bucket, queue, stream or secret), the thread that made it and
 * when it started and ended (the whole call, retries included, as the caller waits for it). A global
 * SDK interceptor ({@code software/amazon/awssdk/global/handlers/execution.interceptors} in the
 * benchmarks jar), so the handlers' clients are used exactly as they build them; when not recording
 * it costs one volatile read per call.
 */
public final class CallRecorder implements ExecutionInterceptor {

    /**
     * One call.
     *
     * @param service as {@code AwsLatencyModel} names it: {@code DYNAMODB}, {@code S3}, {@code SQS},
     *     {@code KINESIS}, {@code SECRETSMANAGER}
     * @param outcome {@code ok}, or the exception's simple name
     */
    public record Call(
            String service,
            String operation,
            String resource,
            String thread,
            long threadId,
            long startNanos,
            long endNanos,
            String outcome) {}

    private static final ExecutionAttribute<Long> STARTED = new ExecutionAttribute<>("SluiceBenchStarted");

    private static volatile List<Call> calls;

    /** Starts recording (forgetting any earlier calls). */
    public static void start() {
        calls = new ArrayList<>();
    }

    /** Stops recording and returns the calls, in the order they ended. */
    public static List<Call> stop() {
        List<Call> recorded = calls;
        calls = null;
        if (recorded == null) {
            return List.of();
        }
        synchronized (recorded) {
            return List.copyOf(recorded);
        }
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (calls != null) {
            attributes.putAttribute(STARTED, System.nanoTime());
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        record(context.request(), attributes, "ok");
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        record(context.request(), attributes, context.exception().getClass().getSimpleName());
    }

    private static void record(SdkRequest request, ExecutionAttributes attributes, String outcome) {
        List<Call> recording = calls;
        Long started = attributes.getAttribute(STARTED);
        if (recording == null || started == null) {
            return;
        }
        long ended = System.nanoTime();
        Thread thread = Thread.currentThread();
        Call call = new Call(
                service(attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME)),
                attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME),
                resource(request),
                thread.getName(),
                thread.getId(),
                started,
                ended,
                outcome);
        synchronized (recording) {
            recording.add(call);
        }
    }

    static String service(String sdkServiceName) {
        return sdkServiceName == null ? "?" : sdkServiceName.toUpperCase(Locale.ROOT);
    }

    private static String resource(SdkRequest request) {
        for (String field : new String[] {"TableName", "Bucket", "QueueUrl", "StreamName", "StreamARN", "SecretId"}) {
            Optional<String> value = request.getValueForField(field, String.class);
            if (value.isPresent()) {
                String v = value.get();
                if (field.equals("Bucket")) {
                    return v
                            + request.getValueForField("Key", String.class)
                                    .map(k -> "/" + k.substring(0, Math.max(0, k.indexOf('/') + 1)))
                                    .orElse("");
                }
                return field.equals("QueueUrl") ? v.substring(v.lastIndexOf('/') + 1) : v;
            }
        }
        return "";
    }
}
