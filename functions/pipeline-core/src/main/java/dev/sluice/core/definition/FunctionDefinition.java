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
 */
public record FunctionDefinition(Integer memoryMb, Integer timeoutSeconds, Integer reservedConcurrency) {

    /** Memory of a stage function that names none. */
    public static final int DEFAULT_MEMORY_MB = 1024;

    /** Timeout of a stage function that names none. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 60;

    public static final FunctionDefinition DEFAULTS = new FunctionDefinition(null, null, null);

    public FunctionDefinition {
        memoryMb = memoryMb == null ? DEFAULT_MEMORY_MB : memoryMb;
        timeoutSeconds = timeoutSeconds == null ? DEFAULT_TIMEOUT_SECONDS : timeoutSeconds;
    }
}
