package dev.sluice.cdk;

/**
 * JVM settings of a stage's Lambda function. The Sluice variables it receives (resource names,
 * URLs and secret ARNs, never secret values) are named by {@link
 * dev.sluice.core.definition.EnvironmentNames}, which the handler reads and the local runner sets
 * too.
 */
public final class StageEnvironment {

    /** JVM flags for a faster cold start (C1 only), measured in BUILD-NOTES.md. */
    public static final String JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS";

    /** The value of {@link #JAVA_TOOL_OPTIONS}. */
    public static final String JVM_FLAGS = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1";

    private StageEnvironment() {}
}
