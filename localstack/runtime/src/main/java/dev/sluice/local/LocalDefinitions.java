package dev.sluice.local;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.schema.SchemaCatalog;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The definition loader of local runs: the repository's schemas, and each stage's {@code handler}
 * checked against the classes the local functions are loaded from, so a handler that cannot run
 * fails when the definition loads (with its file and line), not after the stack has started.
 */
public final class LocalDefinitions {

    private LocalDefinitions() {}

    /** A loader reading {@code <root>/schemas} that checks handlers on this JVM's classpath. */
    public static DefinitionLoader loader(Path root) {
        return new DefinitionLoader(
                SchemaCatalog.fromDirectory(root.resolve("schemas"), new ObjectMapper()), LocalDefinitions::handler);
    }

    /** What is wrong with a handler class name, or empty if the local runtime can load it. */
    static Optional<String> handler(String className) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> type;
        try {
            type = Class.forName(className, false, loader == null ? LocalDefinitions.class.getClassLoader() : loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.of("no class '" + className + "' on the functions' classpath");
        }
        if (!RequestHandler.class.isAssignableFrom(type)) {
            return Optional.of("'" + className + "' is not a Lambda handler: it does not implement RequestHandler");
        }
        return Optional.empty();
    }
}
