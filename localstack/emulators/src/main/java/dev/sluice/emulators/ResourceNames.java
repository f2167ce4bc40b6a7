package dev.sluice.emulators;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Unique names for the AWS resources of one test, so that tests can share one local stack without
 * seeing each other's streams, tables, buckets and queues.
 *
 * <p>{@link #name(String)} appends the suffix to a logical name: {@code name("orders")} gives
 * {@code orders-1a2b3c4d}. Every name is lower case, consists of letters, digits and hyphens,
 * starts with a letter or digit, ends with the suffix and has at most {@value #MAX_LENGTH}
 * characters, which makes it valid as a Kinesis stream, DynamoDB table, S3 bucket (3 to 63
 * characters) and standard SQS queue name.
 *
 * @param suffix lower-case letters and digits, possibly with inner hyphens; at most 32 characters
 */
public record ResourceNames(String suffix) {

    /** The longest name handed out: the S3 bucket limit. */
    public static final int MAX_LENGTH = 63;

    private static final int MAX_SUFFIX_LENGTH = 32;
    private static final Pattern SUFFIX = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");
    private static final Pattern INVALID = Pattern.compile("[^a-z0-9-]+");
    private static final Pattern HYPHENS = Pattern.compile("-{2,}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Checks the suffix. */
    public ResourceNames {
        Objects.requireNonNull(suffix, "suffix");
        if (suffix.length() > MAX_SUFFIX_LENGTH || !SUFFIX.matcher(suffix).matches()) {
            throw new IllegalArgumentException("resource name suffix must be 1 to " + MAX_SUFFIX_LENGTH
                    + " lower-case letters, digits and inner hyphens: '" + suffix + "'");
        }
    }

    /** Names with a fresh random suffix of 8 hex digits. */
    public static ResourceNames random() {
        byte[] bytes = new byte[4];
        RANDOM.nextBytes(bytes);
        return new ResourceNames(HexFormat.of().formatHex(bytes));
    }

    /**
     * The unique name of a logical resource: the logical name in lower case, with every run of
     * other characters than letters, digits and hyphens replaced by one hyphen, shortened as needed,
     * then {@code "-"} and the suffix.
     *
     * @throws IllegalArgumentException if the logical name has no letter or digit
     */
    public String name(String logical) {
        Objects.requireNonNull(logical, "logical");
        String base = INVALID.matcher(logical.toLowerCase(Locale.ROOT)).replaceAll("-");
        base = HYPHENS.matcher(base).replaceAll("-");
        base = trimHyphens(base);
        if (base.isEmpty()) {
            throw new IllegalArgumentException("logical resource name needs a letter or digit: '" + logical + "'");
        }
        int room = MAX_LENGTH - suffix.length() - 1;
        if (base.length() > room) {
            base = trimHyphens(base.substring(0, room));
        }
        return base + "-" + suffix;
    }

    /**
     * The unique name of a FIFO SQS queue: {@link #name(String)} followed by {@code .fifo} (a
     * trailing {@code .fifo} of the logical name is dropped first). Not a valid bucket name.
     */
    public String fifoQueueName(String logical) {
        String base = logical.endsWith(".fifo") ? logical.substring(0, logical.length() - 5) : logical;
        return name(base) + ".fifo";
    }

    private static String trimHyphens(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && value.charAt(start) == '-') {
            start++;
        }
        while (end > start && value.charAt(end - 1) == '-') {
            end--;
        }
        return value.substring(start, end);
    }
}
