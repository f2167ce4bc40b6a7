package dev.sluice.core.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.core.stage.StageChain;
import dev.sluice.core.stage.StageServices;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/** The repository's pipelines as they ship (the definitions and schemas inside pipeline-core's jar), compiled for tests. */
public final class Stages {

    /** A fixed 32-byte tokenization key, for tests only. */
    public static final SecretProvider SECRETS =
            name -> "test-tokenization-key-32-bytes!!".getBytes(StandardCharsets.UTF_8);

    private Stages() {}

    /**
     * The step chain of {@code stage} of the repository pipeline {@code pipeline} (e.g. {@code payments},
     * {@code validate}), read with {@code mapper}, timed by {@code clock}, tokenizing with {@link
     * #SECRETS}, without reference data.
     */
    public static StageChain compile(String pipeline, String stage, ObjectMapper mapper, Clock clock) {
        ClassLoader loader = Stages.class.getClassLoader();
        SchemaCatalog schemas = SchemaCatalog.fromClasspath(loader, mapper);
        return StageChain.compile(
                new DefinitionLoader(schemas).loadResource(loader, pipeline),
                stage,
                new StageServices(schemas, mapper, clock, SECRETS, Map.of()));
    }
}
