package dev.sluice.kcl.health;

import dev.sluice.kcl.worker.KclWorker;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/** {@code /q/health/ready}: the KCL scheduler is initialised; {@code /q/health/live}: its loop runs. */
public final class WorkerHealth {

    private WorkerHealth() {}

    /** Ready once KCL's scheduler finished initialising (lease table found, leader decided). */
    @Readiness
    @ApplicationScoped
    public static class SchedulerInitialised implements HealthCheck {
        @Inject
        KclWorker worker;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("kcl-scheduler-initialised")
                    .status(worker.initialised())
                    .withData("state", String.valueOf(worker.state()))
                    .withData("workerId", String.valueOf(worker.workerId()))
                    .build();
        }
    }

    /** Live while the scheduler's thread runs (or shuts down on purpose). */
    @Liveness
    @ApplicationScoped
    public static class SchedulerAlive implements HealthCheck {
        @Inject
        KclWorker worker;

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("kcl-scheduler-alive")
                    .status(worker.alive())
                    .withData("shardsProcessing", worker.registry().processing())
                    .build();
        }
    }
}
