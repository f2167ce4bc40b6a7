package dev.sluice.aws;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.ConfigurationException;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * What the factories that wire one stage share: its environment, definition, SDK clients, JSON
 * mapper and the thread pool the sinks write their items on.
 *
 * @param env the function's (or worker's) environment variables
 * @param pipeline the pipeline's definition
 * @param stageName the stage's name
 * @param stage the stage being wired
 * @param clients the SDK clients, configured from {@code env}
 * @param mapper the JSON mapper every stage uses ({@link StageRuntime#mapper()})
 * @param writers the item writers' threads, shared by the table and aggregate sinks
 */
public record StageContext(
        Map<String, String> env,
        PipelineDefinition pipeline,
        String stageName,
        StageDefinition stage,
        AwsClients clients,
        ObjectMapper mapper,
        ExecutorService writers) {

    /**
     * The value of a variable the stage cannot run without.
     *
     * @throws ConfigurationException naming the variable when it is missing or blank
     */
    public String required(String name) {
        return required(env, name);
    }

    static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new ConfigurationException("environment variable " + name + " is not set");
        }
        return value;
    }
}
