package dev.sluice.lambda;

import dev.sluice.lambda.snapstart.SnapStartPriming;

/** Test access to what the handler keeps package-private. */
public final class HandlerAccess {

    private HandlerAccess() {}

    public static SnapStartPriming priming(KinesisStageHandler handler) {
        return handler.priming();
    }
}
