package dev.sluice.local.provision;

import java.time.Duration;
import java.util.Map;

/**
 * A {@code consumer: lambda} stage's function as the template declares it ({@code
 * AWS::Lambda::Function}), resolved locally.
 *
 * @param stage the stage it runs
 * @param functionName its local name ({@code <pipeline>-<stage>})
 * @param handler the template's {@code Handler} ({@code class::method})
 * @param environment the template's {@code Environment.Variables} with every reference resolved to
 *     local names, URLs and ARNs
 * @param timeout the template's {@code Timeout} (CloudFormation's default: 3 seconds)
 */
public record FunctionSpec(
        String stage, String functionName, String handler, Map<String, String> environment, Duration timeout) {

    /** Lambda's default timeout, when the template names none. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);

    public FunctionSpec {
        environment = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(environment));
    }
}
