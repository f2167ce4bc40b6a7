package dev.sluice.aws.kpl;

import dev.sluice.core.SluiceException;

/**
 * The record starts with the KPL magic bytes but cannot be de-aggregated (bad digest, undecodable
 * protobuf): the consumer keeps it whole for the chain to dead-letter as {@code MALFORMED_AGGREGATE}.
 */
public final class MalformedAggregateException extends SluiceException {
    private static final long serialVersionUID = 1L;

    MalformedAggregateException(String message) {
        super(message);
    }

    MalformedAggregateException(String message, Throwable cause) {
        super(message, cause);
    }
}
