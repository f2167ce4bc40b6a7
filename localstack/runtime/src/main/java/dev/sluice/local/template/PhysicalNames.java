package dev.sluice.local.template;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The physical names CloudFormation gives resources the template does not name, for the local
 * stack: {@code <stack>-<logicalId>-<SUFFIX>}, the suffix twelve upper-case letters and digits (a
 * bucket's name is all lower case, as S3 requires), stack name and logical id shortened so that the
 * whole fits the service's limit with the suffix kept whole.
 *
 * <p>CloudFormation draws the suffix at random; here it is derived from the stack name and logical
 * id, so a local stack gets the same names on every run (its emulators' data can be reloaded) and
 * two stacks, or two resources of one stack, never get the same name.
 */
public final class PhysicalNames {

    /** Length of the generated suffix. */
    public static final int SUFFIX_LENGTH = 12;

    private static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final String MIXED = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    private PhysicalNames() {}

    /**
     * CloudFormation's name for an unnamed resource: {@code <stack>-<logicalId>-<SUFFIX>}, at most
     * {@code maxLength} characters.
     */
    public static String generated(String stack, String logicalId, int maxLength) {
        String suffix = suffix(stack + "/" + logicalId, SUFFIX_LENGTH, UPPER);
        int room = maxLength - SUFFIX_LENGTH - 2;
        if (room < 2) {
            throw new IllegalArgumentException("no room for a generated name in " + maxLength + " characters");
        }
        String stackPart = stack;
        String idPart = logicalId;
        if (stackPart.length() + idPart.length() > room) {
            // keep as much of each as fits, the stack name at most half unless the logical id is shorter
            int stackRoom = Math.max(room - idPart.length(), room / 2);
            stackPart = stackPart.substring(0, Math.min(stackPart.length(), stackRoom));
            idPart = idPart.substring(0, Math.min(idPart.length(), room - stackPart.length()));
        }
        return trimHyphens(stackPart) + "-" + idPart + "-" + suffix;
    }

    /** {@link #generated} in lower case: S3 bucket names (at most 63 characters). */
    public static String generatedLowerCase(String stack, String logicalId, int maxLength) {
        return generated(stack, logicalId, maxLength).toLowerCase(Locale.ROOT);
    }

    /**
     * CloudFormation's name for an unnamed secret: {@code <logicalId>-<suffix>} (Secrets Manager
     * names are not stack-prefixed; the suffix, here derived from the stack too, keeps two stacks'
     * secrets apart).
     */
    public static String generatedSecret(String stack, String logicalId) {
        return logicalId + "-" + suffix(stack + "/" + logicalId, SUFFIX_LENGTH, MIXED);
    }

    /** The six characters Secrets Manager appends to a secret's ARN, derived from {@code seed}. */
    public static String secretArnSuffix(String seed) {
        return suffix(seed, 6, MIXED);
    }

    private static String suffix(String seed, int length, String alphabet) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(alphabet.charAt((digest[i] & 0xff) % alphabet.length()));
        }
        return out.toString();
    }

    private static String trimHyphens(String value) {
        int end = value.length();
        while (end > 1 && value.charAt(end - 1) == '-') {
            end--;
        }
        return value.substring(0, end);
    }
}
