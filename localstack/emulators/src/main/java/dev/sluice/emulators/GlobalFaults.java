package dev.sluice.emulators;

import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * The SDK's global interceptor hook (listed in {@code
 * software/amazon/awssdk/global/handlers/execution.interceptors}, so every SDK client built in
 * this JVM carries it): it hands each call to the {@link FaultInjector} installed for a fault run,
 * and does nothing when none is. This is how a fault reaches the clients that a function builds
 * for itself from its environment, without any fault code in the function.
 */
public final class GlobalFaults implements ExecutionInterceptor {

    private static final AtomicReference<FaultInjector> ACTIVE = new AtomicReference<>();

    /** Called by the SDK (global interceptors need a public no-arg constructor). */
    public GlobalFaults() {}

    static Installation install(FaultInjector injector) {
        if (!ACTIVE.compareAndSet(null, injector)) {
            throw new IllegalStateException("another fault injector is installed");
        }
        return new Installation(injector);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        FaultInjector injector = ACTIVE.get();
        if (injector != null) {
            injector.beforeTransmission(context, attributes);
        }
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        FaultInjector injector = ACTIVE.get();
        if (injector != null) {
            injector.afterTransmission(context, attributes);
        }
    }

    @Override
    public software.amazon.awssdk.core.SdkRequest modifyRequest(
            Context.ModifyRequest context, ExecutionAttributes attributes) {
        FaultInjector injector = ACTIVE.get();
        return injector == null ? context.request() : injector.modifyRequest(context, attributes);
    }

    @Override
    public software.amazon.awssdk.core.SdkResponse modifyResponse(
            Context.ModifyResponse context, ExecutionAttributes attributes) {
        FaultInjector injector = ACTIVE.get();
        return injector == null ? context.response() : injector.modifyResponse(context, attributes);
    }

    /** An installed injector; closing it uninstalls it. */
    public static final class Installation implements AutoCloseable {
        private final FaultInjector injector;

        private Installation(FaultInjector injector) {
            this.injector = injector;
        }

        @Override
        public void close() {
            ACTIVE.compareAndSet(injector, null);
        }
    }
}
