package dev.sluice.core.definition;

/**
 * The Lambda function of a {@code consumer: lambda} stage. Every field has a default.
 *
 * @param memoryMb function memory, 128 to 10,240 MB (default {@value #DEFAULT_MEMORY_MB}); Lambda's
 *     CPU share grows with it
 * @param timeoutSeconds timeout of one invocation, that is of one batch, 1 to 900 (default {@value
 *     #DEFAULT_TIMEOUT_SECONDS})
 * @param reservedConcurrency concurrency reserved for (and capping) the function; {@code null}
 *     reserves none. When set it must cover every concurrent batch of the event-source mapping:
 *     the input stream's shards × {@code parallelizationFactor}.
 * @param writers threads a batch's table and aggregate items are written on, 1 to {@value #MAX_WRITERS}
 *     (default {@value #DEFAULT_WRITERS}): each conditional write is one request, so a batch's write
 *     phase lasts about its items ÷ writers round trips
 */
public record FunctionDefinition(
        Integer memoryMb, Integer timeoutSeconds, Integer reservedConcurrency, Integer writers) {

    /** Memory of a stage function that names none. */
    public static final int DEFAULT_MEMORY_MB = 1024;

    /** Timeout of a stage function that names none. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;

    /** Item writer threads of a stage function that names none. */
    public static final int DEFAULT_WRITERS = 8;

    /**
     * The most item writers a function may have: its HTTP client keeps 32 connections, shared by the
     * writers and the batch's other sinks (lake, stream, dead letters), so that no call waits for one.
     */
    public static final int MAX_WRITERS = 24;

    public static final FunctionDefinition DEFAULTS = new FunctionDefinition(null, null, null, null);

    public FunctionDefinition {
        memoryMb = memoryMb == null ? DEFAULT_MEMORY_MB : memoryMb;
        timeoutSeconds = timeoutSeconds == null ? DEFAULT_TIMEOUT_SECONDS : timeoutSeconds;
        writers = writers == null ? DEFAULT_WRITERS : writers;
    }

    /** Without the item writers, as older code built it. */
    public FunctionDefinition(Integer memoryMb, Integer timeoutSeconds, Integer reservedConcurrency) {
        this(memoryMb, timeoutSeconds, reservedConcurrency, null);
    }
}
