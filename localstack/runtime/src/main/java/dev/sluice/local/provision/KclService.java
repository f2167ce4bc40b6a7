package dev.sluice.local.provision;

import java.util.Map;

/**
 * A {@code consumer: kcl} stage's service as the template declares it (its {@code
 * AWS::ECS::TaskDefinition} and {@code AWS::ECS::Service}), resolved locally: what local KCL workers
 * are started from.
 *
 * @param stage the stage it runs
 * @param image the worker image the task definition names (AWS only; local workers run in the JVM)
 * @param workers the service's desired count
 * @param environment the worker container's environment with every reference resolved to local names,
 *     URLs and ARNs (application name, input stream, lease table, sinks, dead-letter queue, secret ids)
 */
public record KclService(String stage, String image, int workers, Map<String, String> environment) {

    public KclService {
        environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    }

    KclService withWorkers(int count) {
        return new KclService(stage, image, count, environment);
    }
}
