package dev.sluice.aws;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The environment variables a function sees. In AWS that is the process environment. A local
 * runner that hosts several functions in one JVM gives each its own variables while it constructs
 * the handler, the way the Lambda service would start each function with its configuration.
 */
public final class FunctionEnvironment {

    private static final ThreadLocal<Map<String, String>> SCOPED = new ThreadLocal<>();

    private FunctionEnvironment() {}

    /** The variables in force on this thread: the process environment, or the scoped ones. */
    public static Map<String, String> current() {
        Map<String, String> scoped = SCOPED.get();
        return scoped != null ? scoped : System.getenv();
    }

    /**
     * Runs {@code action} (typically a handler's no-arg constructor) seeing exactly {@code variables}
     * as its environment.
     */
    public static <T> T with(Map<String, String> variables, Callable<T> action) throws Exception {
        Map<String, String> previous = SCOPED.get();
        SCOPED.set(Map.copyOf(new HashMap<>(variables)));
        try {
            return action.call();
        } finally {
            if (previous == null) {
                SCOPED.remove();
            } else {
                SCOPED.set(previous);
            }
        }
    }
}
