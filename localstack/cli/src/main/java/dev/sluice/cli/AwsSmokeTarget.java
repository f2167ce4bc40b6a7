package dev.sluice.cli;

import dev.sluice.cdk.Observability;
import dev.sluice.cdk.SmokeOutputs;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.cloudformation.model.Output;
import software.amazon.awssdk.services.cloudformation.model.Stack;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;

/**
 * A pipeline deployed with {@code cdk deploy} to the account and region of the default AWS
 * credential chain: the stack {@code sluice-<pipeline>}'s outputs ({@link SmokeOutputs}) give the
 * physical names and each persona role's ARN; each persona acts through {@code sts:AssumeRole}
 * into its role, from the caller's credentials. After the smoke, each Lambda stage's first SnapStart
 * restore since the stack's latest deploy is read from its function's log group as {@code admin}
 * ({@link #restores}).
 */
final class AwsSmokeTarget implements SmokeTarget {

    /** How long the REPORT lines of the smoke's invocations may take to reach CloudWatch Logs. */
    static final Duration RESTORE_WAIT = Duration.ofSeconds(30);

    private static final Duration RESTORE_POLL = Duration.ofSeconds(5);

    private final PipelineDefinition definition;
    private final String stackName;
    private final Region region;
    private final StsClient sts;
    private final Map<String, String> outputs;
    private final Instant deployedAt;
    private final Duration restoreWait;
    private final Function<AwsCredentialsProvider, CloudWatchLogsClient> logsClient;
    private final Map<Persona, AwsCredentialsProvider> personas = new EnumMap<>(Persona.class);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /**
     * Reads the stack's outputs.
     *
     * @throws IllegalStateException with one line saying what to do when the stack is not there
     */
    AwsSmokeTarget(PipelineDefinition definition, CloudFormationClient cloudFormation, StsClient sts, Region region) {
        this(
                definition,
                cloudFormation,
                sts,
                region,
                credentials -> CloudWatchLogsClient.builder()
                        .region(region)
                        .credentialsProvider(credentials)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                RESTORE_WAIT);
    }

    /**
     * As above, with the CloudWatch Logs client made from the admin persona's credentials by {@code
     * logsClient}, waiting at most {@code restoreWait} for a stage's restore line to show up.
     *
     * @throws IllegalStateException with one line saying what to do when the stack is not there
     */
    AwsSmokeTarget(
            PipelineDefinition definition,
            CloudFormationClient cloudFormation,
            StsClient sts,
            Region region,
            Function<AwsCredentialsProvider, CloudWatchLogsClient> logsClient,
            Duration restoreWait) {
        this.logsClient = logsClient;
        this.restoreWait = restoreWait;
        this.definition = definition;
        this.stackName = "sluice-" + definition.pipeline();
        this.region = region;
        this.sts = sts;
        Stack stack;
        try {
            stack = cloudFormation.describeStacks(b -> b.stackName(stackName)).stacks().stream()
                    .findFirst()
                    .orElseThrow(() -> notDeployed(null));
        } catch (SdkException e) {
            throw notDeployed(e);
        }
        Map<String, String> values = new TreeMap<>();
        for (Output output : stack.outputs()) {
            values.put(output.outputKey(), output.outputValue());
        }
        this.outputs = Map.copyOf(values);
        // the latest deploy: a stack update that changed a function published its new version after this
        this.deployedAt = stack.lastUpdatedTime() != null ? stack.lastUpdatedTime() : stack.creationTime();
        closeables.add(cloudFormation);
        closeables.add(sts);
    }

    /** With the default credential chain and region, as the AWS CLI would use them. */
    static AwsSmokeTarget connect(PipelineDefinition definition) {
        Region region;
        try {
            region = new DefaultAwsRegionProviderChain().getRegion();
        } catch (SdkException e) {
            throw new IllegalStateException(
                    "no AWS region: set AWS_REGION or a profile's region (aws configure), as for cdk deploy");
        }
        return new AwsSmokeTarget(
                definition,
                CloudFormationClient.builder()
                        .region(region)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                StsClient.builder()
                        .region(region)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                region);
    }

    private IllegalStateException notDeployed(SdkException cause) {
        return new IllegalStateException("cannot read the stack " + stackName + " in " + region + " ("
                + (cause == null ? "not found" : firstLine(cause.getMessage())) + "): deploy it first (cd infra-cdk &&"
                + " npx cdk deploy " + stackName + ") with the same credentials and region");
    }

    /** The first line of an SDK message (AWS answers may span lines). */
    static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private String output(String key) {
        String value = outputs.get(key);
        if (value == null) {
            throw new IllegalStateException("the stack " + stackName + " has no output " + key
                    + ": it was deployed before ./sluice smoke existed; deploy it again (npx cdk deploy " + stackName
                    + ")");
        }
        return value;
    }

    /** The ARN of a persona's role, from the stack output {@link SmokeOutputs#personaRole}. */
    String roleArn(Persona persona) {
        return output(SmokeOutputs.personaRole(persona));
    }

    /**
     * The persona's credentials: its role assumed once (and refreshed by the SDK), session name
     * {@code sluice-smoke-<persona>}. Resolved at once, so that a refused {@code AssumeRole} stops the
     * run with one line before anything is put.
     */
    synchronized AwsCredentialsProvider credentials(Persona persona) {
        AwsCredentialsProvider provider = personas.get(persona);
        if (provider == null) {
            String arn = roleArn(persona);
            StsAssumeRoleCredentialsProvider assumed = StsAssumeRoleCredentialsProvider.builder()
                    .stsClient(sts)
                    .refreshRequest(b -> b.roleArn(arn).roleSessionName("sluice-smoke-" + persona.yamlName()))
                    .build();
            try {
                assumed.resolveCredentials();
            } catch (SdkException e) {
                throw new IllegalStateException(
                        "cannot assume the " + persona.yamlName() + " persona role " + arn + ": "
                                + firstLine(e.getMessage())
                                + (persona == Persona.ADMIN
                                        ? " (admin requires MFA or the session tag: see docs/operations.md#access)"
                                        : " (sluice:personaTrust names who may: see docs/operations.md#access)"));
            }
            closeables.add(assumed);
            personas.put(persona, assumed);
            provider = assumed;
        }
        return provider;
    }

    @Override
    public String where() {
        return "AWS, stack " + stackName + " in " + region;
    }

    @Override
    public PipelineDefinition definition() {
        return definition;
    }

    @Override
    public String stream(String logicalName) {
        return output(SmokeOutputs.stream(logicalName));
    }

    @Override
    public String table(String logicalName) {
        return output(SmokeOutputs.table(logicalName));
    }

    @Override
    public String queueUrl(String logicalName) {
        return output(SmokeOutputs.queueUrl(logicalName));
    }

    @Override
    public String lakeBucket() {
        return definition.lakes().isEmpty() ? null : output(SmokeOutputs.LAKE_BUCKET);
    }

    /** The CloudWatch console URL of the stack's dashboard (stack output {@code DashboardName}). */
    @Override
    public String dashboard() {
        return "https://" + region.id() + ".console.aws.amazon.com/cloudwatch/home?region=" + region.id()
                + "#dashboards/dashboard/" + output(Observability.DASHBOARD_OUTPUT);
    }

    /** When the stack was last deployed. */
    Instant deployedAt() {
        return deployedAt;
    }

    private <T extends AutoCloseable> T track(T client) {
        closeables.add(client);
        return client;
    }

    @Override
    public KinesisClient kinesis(Persona persona) {
        return track(KinesisClient.builder()
                .region(region)
                .credentialsProvider(credentials(persona))
                .httpClientBuilder(Apache5HttpClient.builder())
                .build());
    }

    @Override
    public S3Client s3(Persona persona) {
        return track(S3Client.builder()
                .region(region)
                .credentialsProvider(credentials(persona))
                .httpClientBuilder(Apache5HttpClient.builder())
                .build());
    }

    @Override
    public DynamoDbClient dynamoDb(Persona persona) {
        return track(DynamoDbClient.builder()
                .region(region)
                .credentialsProvider(credentials(persona))
                .httpClientBuilder(Apache5HttpClient.builder())
                .build());
    }

    @Override
    public SqsClient sqs(Persona persona) {
        return track(SqsClient.builder()
                .region(region)
                .credentialsProvider(credentials(persona))
                .httpClientBuilder(Apache5HttpClient.builder())
                .build());
    }

    /**
     * The first REPORT line with a {@code Restore Duration} in each Lambda stage function's log group
     * (stack output {@link SmokeOutputs#functionLogGroup}) since the stack's latest deploy (its {@code
     * LastUpdatedTime}, else {@code CreationTime}), found with {@code FilterLogEvents} as {@code
     * admin}, the persona that reads the stages' logs.
     */
    @Override
    public List<StageRestore> restores() {
        Map<String, StageRestore> byStage = new LinkedHashMap<>(); // definition order
        Map<String, String> logGroups = new LinkedHashMap<>();
        definition.stages().forEach((stage, settings) -> {
            if (settings.consumer() != ConsumerType.LAMBDA) {
                return;
            }
            String output = SmokeOutputs.functionLogGroup(stage);
            byStage.put(
                    stage,
                    StageRestore.none(
                            stage,
                            deployedAt,
                            "n/a: the stack " + stackName + " has no output " + output
                                    + " (deployed before the smoke read restores); deploy it again"));
            if (outputs.containsKey(output)) {
                logGroups.put(stage, outputs.get(output));
            }
        });
        if (!logGroups.isEmpty()) {
            AwsCredentialsProvider admin;
            try {
                admin = credentials(Persona.ADMIN);
            } catch (IllegalStateException e) {
                logGroups
                        .keySet()
                        .forEach(stage ->
                                byStage.put(stage, StageRestore.none(stage, deployedAt, "n/a: " + e.getMessage())));
                return List.copyOf(byStage.values());
            }
            CloudWatchLogsClient logs = track(logsClient.apply(admin));
            new RestoreLookup(logs, restoreWait, RESTORE_POLL, Clock.systemUTC())
                    .find(logGroups, deployedAt)
                    .forEach(restore -> byStage.put(restore.stage(), restore));
        }
        return List.copyOf(byStage.values());
    }

    @Override
    public void close() {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                // closing clients: nothing left to do
            }
        }
    }
}
