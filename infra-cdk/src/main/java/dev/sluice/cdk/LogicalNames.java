package dev.sluice.cdk;

/**
 * Turns the logical names of a pipeline definition ({@code payments-by-id}: lower-case letters,
 * digits and {@code -}) into construct ids. Environment variable names come from
 * {@link dev.sluice.core.definition.EnvironmentNames}.
 */
final class LogicalNames {

    private LogicalNames() {}

    /** {@code payments-by-id} → {@code PaymentsById}, for construct ids. */
    static String pascal(String logicalName) {
        StringBuilder out = new StringBuilder(logicalName.length());
        boolean upper = true;
        for (char c : logicalName.toCharArray()) {
            if (c == '-' || c == '_') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }
}
