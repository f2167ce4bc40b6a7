package dev.sluice.emulators.limits;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SQS's message size limit, per queue: a message — its body and every message attribute's name, data
 * type and value, in bytes — may not be longer than the queue's {@code MaximumMessageSize}, and the
 * messages of one {@code SendMessageBatch} together not longer than it either (AWS, "Amazon SQS
 * message quotas" and the {@code CreateQueue} API reference). ElasticMQ 1.7.1 checks only the body,
 * against a fixed 1 MiB, answers {@code InvalidAttributeValue} "MessageTooLong" and ignores a
 * queue's {@code MaximumMessageSize}; the SQS gate checks with this before forwarding.
 *
 * <p>A queue that does not set {@code MaximumMessageSize} is held to {@value
 * #DEFAULT_MAXIMUM_MESSAGE_SIZE} bytes (256 KiB), the historical default that queues created before
 * AWS raised the ceiling to {@value #MAXIMUM_MESSAGE_SIZE_CEILING} bytes (1 MiB) keep; the local stack
 * errs on the strict side (docs/local-limits.md).
 */
public final class SqsLimits {

    /** A queue's limit when it does not set {@code MaximumMessageSize}. */
    public static final int DEFAULT_MAXIMUM_MESSAGE_SIZE = 262_144;

    /** The largest {@code MaximumMessageSize} a queue may set. */
    public static final int MAXIMUM_MESSAGE_SIZE_CEILING = 1_048_576;

    private final Map<String, Integer> maximumByQueue = new ConcurrentHashMap<>();

    /**
     * Remembers a queue's {@code MaximumMessageSize} as CreateQueue or SetQueueAttributes set it
     * (ignored when absent or not a number in AWS's range).
     */
    public void maximumMessageSize(String queue, String value) {
        if (queue == null || value == null) {
            return;
        }
        try {
            int bytes = Integer.parseInt(value.trim());
            if (bytes >= 1_024 && bytes <= MAXIMUM_MESSAGE_SIZE_CEILING) {
                maximumByQueue.put(queue, bytes);
            }
        } catch (NumberFormatException e) {
            // the emulator answers the malformed attribute as it does
        }
    }

    /** Forgets a deleted queue's limit. */
    public void deleted(String queue) {
        if (queue != null) {
            maximumByQueue.remove(queue);
        }
    }

    /** A queue's limit in bytes. */
    public int maximumMessageSize(String queue) {
        return queue == null
                ? DEFAULT_MAXIMUM_MESSAGE_SIZE
                : maximumByQueue.getOrDefault(queue, DEFAULT_MAXIMUM_MESSAGE_SIZE);
    }

    /**
     * AWS's refusal of a SendMessage too long for its queue ({@code InvalidParameterValue}), or null if
     * it fits.
     *
     * @param bytes the message's size: body plus attributes
     */
    public String refusal(String queue, long bytes) {
        int maximum = maximumMessageSize(queue);
        return bytes > maximum
                ? "One or more parameters are invalid. Reason: Message must be shorter than " + maximum + " bytes."
                : null;
    }

    /**
     * AWS's refusal of a SendMessageBatch whose messages together are too long ({@code
     * BatchRequestTooLong}), or null if they fit.
     *
     * @param bytes the sum of the messages' sizes
     */
    public String batchRefusal(String queue, long bytes) {
        int maximum = maximumMessageSize(queue);
        return bytes > maximum
                ? "Batch requests cannot be longer than " + maximum + " bytes. You have sent " + bytes + " bytes."
                : null;
    }
}
