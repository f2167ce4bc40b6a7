package dev.sluice.core.schema;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.schema.fast.FastValidator;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * A rough, hand-run measurement (not a test, asserts nothing, not run by CI): nanoseconds and bytes allocated per
 * valid event for networknt alone and for the fast path. Run after {@code test-compile} with
 *
 * <pre>
 * java -cp target/classes:target/test-classes:$(cat cp.txt) dev.sluice.core.schema.ValidationTiming
 * </pre>
 */
public final class ValidationTiming {

    private static volatile boolean sink;

    private ValidationTiming() {}

    public static void main(String[] args) throws java.io.IOException {
        fixture(ConformanceCorpus.PAYMENT, "payment-valid.json");
        fixture(ConformanceCorpus.CLICK, "click-view.json");
        measure(ConformanceCorpus.PAYMENT, FastValidatorPropertyTest::payment);
        measure(ConformanceCorpus.CLICK, FastValidatorPropertyTest::click);
    }

    /** One typical event (the test fixture), validated over and over. */
    private static void fixture(String name, String file) throws java.io.IOException {
        EventSchema schema = FastValidatorConformanceTest.schema(name);
        FastValidator fast = schema.fastValidator().orElseThrow();
        JsonNode event = SchemaCatalogTest.fixture(file);
        System.out.printf(
                "%s: the fixture %s, %d bytes%n",
                name, file, event.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        JsonNode[] events = {event};
        run("networknt", events, e -> schema.referenceViolations(e).isEmpty(), 200_000);
        run("fast path", events, fast::isValid, 5_000_000);
        run(
                "EventSchema.violations (fast path wired in)",
                events,
                e -> schema.violations(e).isEmpty(),
                5_000_000);
    }

    private static void measure(String name, java.util.function.Function<Random, JsonNode> generator) {
        EventSchema schema = FastValidatorConformanceTest.schema(name);
        FastValidator fast = schema.fastValidator().orElseThrow();
        Random random = new Random(7);
        List<JsonNode> valid = new ArrayList<>();
        while (valid.size() < 1024) {
            JsonNode event = FastValidatorConformanceTest.read(
                    FastValidatorConformanceTest.DOUBLES,
                    generator.apply(random).toString());
            if (schema.referenceViolations(event).isEmpty()) {
                valid.add(event);
            }
        }
        JsonNode[] events = valid.toArray(new JsonNode[0]);
        int bytes = 0;
        for (JsonNode event : events) {
            bytes += event.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
        System.out.printf(
                "%s: %d distinct random valid events, %d bytes each on average%n",
                name, events.length, bytes / events.length);
        run("networknt", events, e -> schema.referenceViolations(e).isEmpty(), 200_000);
        run("fast path", events, fast::isValid, 5_000_000);
        run(
                "EventSchema.violations (fast path wired in)",
                events,
                e -> schema.violations(e).isEmpty(),
                5_000_000);
    }

    private static void run(String label, JsonNode[] events, Predicate<JsonNode> validate, int iterations) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        double best = Double.MAX_VALUE;
        double bytesPerOp = 0;
        for (int round = 0; round < 7; round++) {
            long allocatedBefore = threads.getThreadAllocatedBytes(thread);
            long start = System.nanoTime();
            boolean all = true;
            for (int i = 0; i < iterations; i++) {
                all &= validate.test(events[i & (events.length - 1)]);
            }
            long elapsed = System.nanoTime() - start;
            long allocated = threads.getThreadAllocatedBytes(thread) - allocatedBefore;
            sink = all;
            if (round >= 2) { // the first rounds warm up
                best = Math.min(best, (double) elapsed / iterations);
                bytesPerOp = (double) allocated / iterations;
            }
        }
        System.out.printf("  %-45s %9.1f ns/event  %8.1f bytes/event%n", label, best, bytesPerOp);
    }
}
