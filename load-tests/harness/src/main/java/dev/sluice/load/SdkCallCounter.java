package dev.sluice.load;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * The SDK's global interceptor hook, like {@code faults.GlobalFaults} (listed in {@code
 * software/amazon/awssdk/global/handlers/execution.interceptors}, so every SDK client built in
 * this JVM carries it — the functions' own clients included, since the local stack runs them in
 * process): while {@link RequestCounts} are installed, it counts every HTTP attempt by service,
 * operation and resource, and times it from transmission to the response's headers. Without an
 * installation it does nothing.
 */
public final class SdkCallCounter implements ExecutionInterceptor {

    private static final AtomicReference<RequestCounts> ACTIVE = new AtomicReference<>();
    private static final List<String> RESOURCE_FIELDS =
            List.of("StreamName", "StreamARN", "TableName", "Bucket", "QueueUrl");

    /** Called by the SDK (global interceptors need a public no-arg constructor). */
    public SdkCallCounter() {}

    /** Counts every request into {@code counts} until the installation is closed. */
    public static Installation install(RequestCounts counts) {
        if (!ACTIVE.compareAndSet(null, counts)) {
            throw new IllegalStateException("requests are being counted already");
        }
        return () -> ACTIVE.compareAndSet(counts, null);
    }

    /** When the attempt was transmitted ({@link System#nanoTime()}). */
    private static final ExecutionAttribute<Long> SENT_AT = new ExecutionAttribute<>("SluiceLoadSentAt");

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        RequestCounts counts = ACTIVE.get();
        if (counts == null) {
            return;
        }
        SdkRequest request = context.request();
        counts.record(
                attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME),
                attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME),
                resource(request),
                entries(request));
        attributes.putAttribute(SENT_AT, System.nanoTime());
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        RequestCounts counts = ACTIVE.get();
        Long sentAt = attributes.getAttribute(SENT_AT);
        if (counts == null || sentAt == null) {
            return;
        }
        counts.time(
                attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME),
                attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME),
                resource(context.request()),
                System.nanoTime() - sentAt);
    }

    static String resource(SdkRequest request) {
        for (String field : RESOURCE_FIELDS) {
            Optional<String> value = request.getValueForField(field, String.class);
            if (value.isPresent()) {
                String v = value.get(); // an ARN or a queue URL ends with the name
                return v.substring(v.lastIndexOf('/') + 1);
            }
        }
        Optional<Map> items = request.getValueForField("RequestItems", Map.class);
        return items.map(m -> String.join(",", new java.util.TreeSet<String>(m.keySet())))
                .orElse("");
    }

    static long entries(SdkRequest request) {
        for (String field : List.of("Records", "Entries")) {
            Optional<List> list = request.getValueForField(field, List.class);
            if (list.isPresent()) {
                return list.get().size();
            }
        }
        Optional<Map> items = request.getValueForField("RequestItems", Map.class);
        if (items.isPresent()) {
            long n = 0;
            for (Object value : items.get().values()) {
                if (value instanceof List<?> l) {
                    n += l.size();
                } else {
                    n++;
                }
            }
            return n;
        }
        return 1;
    }

    /** An installation; closing it stops the counting. */
    public interface Installation extends AutoCloseable {
        @Override
        void close();
    }
}
