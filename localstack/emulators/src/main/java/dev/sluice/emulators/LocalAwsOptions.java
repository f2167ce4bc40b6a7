package dev.sluice.emulators;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How to start a {@link LocalAws} stack. {@link #defaults()} gives an in-memory stack in
 * {@code us-east-1} whose Node emulators log to {@code localstack/.run/logs}.
 */
public final class LocalAwsOptions {

    /** The system property naming the Node.js binary; {@code node} on the PATH otherwise. */
    public static final String NODE_PROPERTY = "sluice.node";

    private final String region;
    private final Path localstackDirectory;
    private final Path logDirectory;
    private final Path kinesisDataDirectory;
    private final Path dynamoDbDataDirectory;
    private final String nodeExecutable;
    private final Duration startTimeout;
    private final Duration stopTimeout;
    private final boolean accessGates;
    private final boolean limits;

    /** The environment variable that turns IAM enforcement off ({@code SLUICE_IAM=off}). */
    public static final String IAM_ENV = "SLUICE_IAM";

    /** The system property that turns IAM enforcement off ({@code -Dsluice.iam=off}). */
    public static final String IAM_PROPERTY = "sluice.iam";

    /** The environment variable that turns AWS's limits off ({@code SLUICE_LIMITS=off}). */
    public static final String LIMITS_ENV = "SLUICE_LIMITS";

    /** The system property that turns AWS's limits off ({@code -Dsluice.limits=off}). */
    public static final String LIMITS_PROPERTY = "sluice.limits";

    private LocalAwsOptions(Builder builder) {
        this.region = builder.region;
        this.localstackDirectory = builder.localstackDirectory;
        this.logDirectory = builder.logDirectory;
        this.kinesisDataDirectory = builder.kinesisDataDirectory;
        this.dynamoDbDataDirectory = builder.dynamoDbDataDirectory;
        this.nodeExecutable = builder.nodeExecutable;
        this.startTimeout = builder.startTimeout;
        this.stopTimeout = builder.stopTimeout;
        this.accessGates = builder.accessGates;
        this.limits = builder.limits;
    }

    /**
     * Whether AWS's limits (Kinesis per-shard quotas) are enforced by default: yes, unless {@value
     * #LIMITS_PROPERTY} or {@value #LIMITS_ENV} is {@code off} (or {@code false}).
     */
    public static boolean limitsEnforcedByDefault() {
        String value = System.getProperty(LIMITS_PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(LIMITS_ENV);
        }
        return value == null || !(value.equalsIgnoreCase("off") || value.equalsIgnoreCase("false"));
    }

    /**
     * Whether IAM is enforced by default: yes, unless {@value #IAM_PROPERTY} or {@value #IAM_ENV} is
     * {@code off} (or {@code false}).
     */
    public static boolean iamEnforcedByDefault() {
        String value = System.getProperty(IAM_PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(IAM_ENV);
        }
        return value == null || !(value.equalsIgnoreCase("off") || value.equalsIgnoreCase("false"));
    }

    /** In-memory emulators with the defaults of {@link Builder}. */
    public static LocalAwsOptions defaults() {
        return builder().build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.region = region;
        builder.localstackDirectory = localstackDirectory;
        builder.logDirectory = logDirectory;
        builder.kinesisDataDirectory = kinesisDataDirectory;
        builder.dynamoDbDataDirectory = dynamoDbDataDirectory;
        builder.nodeExecutable = nodeExecutable;
        builder.startTimeout = startTimeout;
        builder.stopTimeout = stopTimeout;
        builder.accessGates = accessGates;
        builder.limits = limits;
        return builder;
    }

    /** The AWS region of the stack, {@code us-east-1} unless set. */
    public String region() {
        return region;
    }

    /** The localstack directory, if set; else {@link LocalstackDirectory#locate()} finds it. */
    public Optional<Path> localstackDirectory() {
        return Optional.ofNullable(localstackDirectory);
    }

    /** Where the Node emulators' output goes, if set; else {@code <localstack>/.run/logs}. */
    public Optional<Path> logDirectory() {
        return Optional.ofNullable(logDirectory);
    }

    /** Where kinesis-mock persists its streams (once a second), if set; else in memory only. */
    public Optional<Path> kinesisDataDirectory() {
        return Optional.ofNullable(kinesisDataDirectory);
    }

    /** Where dynalite keeps its LevelDB store, if set; else in memory only. */
    public Optional<Path> dynamoDbDataDirectory() {
        return Optional.ofNullable(dynamoDbDataDirectory);
    }

    /**
     * The Node.js binary: the builder's, else the system property {@value #NODE_PROPERTY}, else
     * {@code node}.
     */
    public String nodeExecutable() {
        if (nodeExecutable != null) {
            return nodeExecutable;
        }
        String property = System.getProperty(NODE_PROPERTY);
        return property == null || property.isBlank() ? "node" : property;
    }

    /** How long each emulator may take to answer its first request. */
    public Duration startTimeout() {
        return startTimeout;
    }

    /** How long a Node emulator may take to exit after SIGTERM before it is killed. */
    public Duration stopTimeout() {
        return stopTimeout;
    }

    /**
     * Whether each emulator sits behind an access gate ({@link dev.sluice.emulators.iam.AccessGate})
     * that authorizes every request: on by default ({@link #iamEnforcedByDefault()}).
     */
    public boolean accessGates() {
        return accessGates;
    }

    /**
     * Whether the Kinesis gate enforces the per-shard quotas (default {@link
     * #limitsEnforcedByDefault()}); they are enforced by the access gates, so only with them.
     */
    public boolean limits() {
        return limits;
    }

    @Override
    public String toString() {
        return "LocalAwsOptions[region=" + region + ", localstackDirectory=" + localstackDirectory + ", logDirectory="
                + logDirectory + ", kinesisDataDirectory=" + kinesisDataDirectory + ", dynamoDbDataDirectory="
                + dynamoDbDataDirectory + ", nodeExecutable=" + nodeExecutable + ", startTimeout=" + startTimeout
                + ", stopTimeout=" + stopTimeout + ", accessGates=" + accessGates + ", limits=" + limits + "]";
    }

    /** Builds {@link LocalAwsOptions}. */
    public static final class Builder {

        private String region = "us-east-1";
        private Path localstackDirectory;
        private Path logDirectory;
        private Path kinesisDataDirectory;
        private Path dynamoDbDataDirectory;
        private String nodeExecutable;
        private Duration startTimeout = Duration.ofSeconds(60);
        private Duration stopTimeout = Duration.ofSeconds(3);
        private boolean accessGates = iamEnforcedByDefault();
        private boolean limits = limitsEnforcedByDefault();

        private Builder() {}

        /** Enforce AWS's Kinesis per-shard quotas at the gate (default: {@link #limitsEnforcedByDefault()}). */
        public Builder limits(boolean limits) {
            this.limits = limits;
            return this;
        }

        /** Put an access gate in front of each emulator (default: {@link #iamEnforcedByDefault()}). */
        public Builder accessGates(boolean accessGates) {
            this.accessGates = accessGates;
            return this;
        }

        /** The AWS region the clients use and the emulators report (default {@code us-east-1}). */
        public Builder region(String region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /** The localstack directory holding {@code node_modules} and {@code bin/with-parent.js}. */
        public Builder localstackDirectory(Path localstackDirectory) {
            this.localstackDirectory = localstackDirectory;
            return this;
        }

        /** Where the Node emulators' stdout and stderr go (default {@code <localstack>/.run/logs}). */
        public Builder logDirectory(Path logDirectory) {
            this.logDirectory = logDirectory;
            return this;
        }

        /** Persist kinesis-mock's streams in this directory; {@code null} keeps them in memory. */
        public Builder kinesisDataDirectory(Path kinesisDataDirectory) {
            this.kinesisDataDirectory = kinesisDataDirectory;
            return this;
        }

        /** Keep dynalite's tables in this directory; {@code null} keeps them in memory. */
        public Builder dynamoDbDataDirectory(Path dynamoDbDataDirectory) {
            this.dynamoDbDataDirectory = dynamoDbDataDirectory;
            return this;
        }

        /** The Node.js binary; {@code null} means {@value #NODE_PROPERTY} or {@code node}. */
        public Builder nodeExecutable(String nodeExecutable) {
            this.nodeExecutable = nodeExecutable;
            return this;
        }

        /** How long each emulator may take to answer its first request (default 60 s). */
        public Builder startTimeout(Duration startTimeout) {
            this.startTimeout = requirePositive(startTimeout, "startTimeout");
            return this;
        }

        /** How long a Node emulator may take to exit after SIGTERM (default 3 s). */
        public Builder stopTimeout(Duration stopTimeout) {
            this.stopTimeout = requirePositive(stopTimeout, "stopTimeout");
            return this;
        }

        /** The options. */
        public LocalAwsOptions build() {
            return new LocalAwsOptions(this);
        }

        private static Duration requirePositive(Duration duration, String name) {
            Objects.requireNonNull(duration, name);
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + duration);
            }
            return duration;
        }
    }
}
