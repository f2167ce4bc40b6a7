package dev.sluice.planner;

import java.util.Locale;

/** How a plan buys DynamoDB capacity for the stage's tables. */
public enum DynamoDbCapacity {
    /** Pay per request unit: no capacity to manage, about 2.4 times the provisioned price at 70 % use. */
    ON_DEMAND,
    /**
     * Provisioned capacity with auto scaling at its default 70 % target utilisation: the capacity
     * follows the daily curve, so on average 1 ÷ 0.7 units are paid for each unit used.
     */
    PROVISIONED;

    /** DynamoDB auto scaling's default target utilisation. */
    public static final double TARGET_UTILISATION = 0.7;

    /** {@code on-demand} or {@code provisioned}. */
    public String option() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The value of {@code --dynamodb-capacity}. */
    public static DynamoDbCapacity of(String option) {
        for (DynamoDbCapacity c : values()) {
            if (c.option().equals(option)) {
                return c;
            }
        }
        throw new IllegalArgumentException("dynamodb-capacity must be on-demand or provisioned, got '" + option + "'");
    }
}
