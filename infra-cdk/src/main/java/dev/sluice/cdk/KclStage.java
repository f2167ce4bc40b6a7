package dev.sluice.cdk;

import dev.sluice.aws.StageAccess;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.KclAccess;
import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.ReferenceDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.ArnFormat;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.GlobalSecondaryIndexProps;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.ProjectionType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.ec2.SubnetSelection;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ecs.AwsLogDriverProps;
import software.amazon.awscdk.services.ecs.ContainerDefinition;
import software.amazon.awscdk.services.ecs.ContainerDefinitionOptions;
import software.amazon.awscdk.services.ecs.ContainerImage;
import software.amazon.awscdk.services.ecs.CpuArchitecture;
import software.amazon.awscdk.services.ecs.DeploymentCircuitBreaker;
import software.amazon.awscdk.services.ecs.FargateService;
import software.amazon.awscdk.services.ecs.FargateTaskDefinition;
import software.amazon.awscdk.services.ecs.HealthCheck;
import software.amazon.awscdk.services.ecs.LogDrivers;
import software.amazon.awscdk.services.ecs.OperatingSystemFamily;
import software.amazon.awscdk.services.ecs.RuntimePlatform;
import software.amazon.awscdk.services.iam.IRole;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.kinesis.Stream;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.logs.RetentionDays;
import software.amazon.awscdk.services.sqs.Queue;
import software.constructs.Construct;

/**
 * A {@code consumer: kcl} stage: a Fargate service of KCL workers reading the stage's input stream,
 * the KCL lease table the stack provisions for it, and the workers' KMS-encrypted log group. The
 * service runs in the pipeline's shared {@link KclCluster}.
 *
 * <p>The lease table has partition key {@value #LEASE_KEY} and the GSI {@value #LEASE_OWNER_INDEX}
 * ({@value #LEASE_OWNER} + {@value #LEASE_KEY}, keys only) that KCL 3 would otherwise add itself;
 * KCL gets no {@code CreateTable} or {@code UpdateTable} permission. Its name is left to
 * CloudFormation and handed to the workers in {@link EnvironmentNames#KCL_LEASE_TABLE}.
 *
 * <p>The task role is granted exactly what the stage's code declares (sluice-aws's {@code
 * StageAccess}: its sinks, aggregate sink, reference loaders, secret provider and dead-letter sink) and
 * what KCL calls ({@link KclAccess}: polling reads of the input stream, the lease table and its GSI,
 * {@code DescribeTable} of KCL's legacy {@code <application>-CoordinatorState} and {@code
 * -WorkerMetricStats} tables, metrics in the application's namespace), each key only through its
 * service ({@link StageGrants}). A lake sink gets the bucket and the commit ledger like a Lambda
 * stage's (a shard has one KCL owner at a time, the one writer per shard the ledger needs); {@code
 * object} references are not supported on KCL stages yet.
 *
 * <p>The image is the worker image built by {@code functions/kcl} (Jib, profile {@code worker-image}),
 * from one of two sources ({@link #imageSource}):
 *
 * <ul>
 *   <li>{@value #IMAGE_CONTEXT}: the image pushed to ECR, named by digest (the Docker-free path);
 *       anything but an ECR image by digest stops synthesis with a {@link SynthesisRefusedException};
 *   <li>else {@value #IMAGE_TARBALL_CONTEXT}: the arm64 image tarball the Maven build writes ({@link
 *       #DEFAULT_TARBALL}), as a CDK container image asset ({@code ContainerImage.fromTarball}) that
 *       {@code cdk deploy} loads with Docker and pushes to the bootstrap repository, CDK's convention.
 * </ul>
 *
 * <p>With neither, the stage cannot be built: {@link SluiceApp} then leaves the stage's stack out of the
 * assembly with one line saying how to get an image ({@link #missingImage}), and synthesizes the other
 * stacks; no placeholder is ever deployed. Only the local stack's in-process synthesis ({@link
 * InProcessSynth}, context {@value #LOCAL_WORKERS_CONTEXT}) goes without one: it runs the workers from its
 * class path and never deploys the template. The container's health check runs the image's {@code
 * HealthProbe} against {@code /q/health/live}.
 */
public final class KclStage extends Construct {

    /**
     * Context key holding the KCL worker image: an ECR image by digest, {@code
     * <account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<digest>}.
     */
    public static final String IMAGE_CONTEXT = "sluice:kclImage";

    /**
     * Context key holding the path of the worker image tarball ({@link #DEFAULT_TARBALL}, which {@link
     * SluiceApp} takes as the default when it exists), used when {@value #IMAGE_CONTEXT} is not set.
     */
    public static final String IMAGE_TARBALL_CONTEXT = "sluice:kclImageTarball";

    /**
     * The image tarball {@code functions/kcl} builds (profile {@code worker-image}), relative to the
     * repository root: arm64, the architecture of the task definition.
     */
    public static final String DEFAULT_TARBALL = "functions/kcl/target/jib/sluice-kcl-arm64.tar";

    /** The Maven command that builds {@link #DEFAULT_TARBALL}. */
    public static final String BUILD_TARBALL = "./mvnw -B -pl functions/kcl -am package -DskipTests -Pworker-image";

    /** Where a stage's worker image comes from ({@link #imageSource}). */
    enum ImageSource {
        /** {@value #IMAGE_CONTEXT}: an ECR image by digest. */
        DIGEST,
        /** {@value #LOCAL_WORKERS_CONTEXT}: the local stack's template, {@link #LOCAL_IMAGE}. */
        LOCAL,
        /** {@value #IMAGE_TARBALL_CONTEXT}: a container image asset from the tarball. */
        TARBALL,
        /** None: the stage cannot be synthesized. */
        NONE
    }

    /**
     * Context key set by {@link InProcessSynth} only: the template is for the local stack, which runs
     * the KCL workers from its own class path, so the task definition names {@link #LOCAL_IMAGE}.
     */
    public static final String LOCAL_WORKERS_CONTEXT = "sluice:localKclWorkers";

    /** The image named in templates synthesized for the local stack only (never deployed, never pulled). */
    public static final String LOCAL_IMAGE = "sluice-kcl:local-workers-run-from-the-class-path";

    /** An ECR image by digest: account, region, repository, digest. */
    public static final Pattern IMAGE_BY_DIGEST = Pattern.compile("^(\\d{12})\\.dkr\\.ecr\\.([a-z]{2}(?:-[a-z]+)+-\\d)"
            + "\\.amazonaws\\.com(?:\\.cn)?/((?:[a-z0-9]+(?:[._-][a-z0-9]+)*/)*[a-z0-9]+(?:[._-][a-z0-9]+)*)"
            + "@(sha256:[0-9a-f]{64})$");

    /** How to get an image: the end of the one line {@link #missingImage} says. */
    static final String HOW_TO_GET_AN_IMAGE = "build the image tarball with " + BUILD_TARBALL
            + " (./sluice synth and npx cdk synth|deploy build it when missing; cdk deploy then needs Docker),"
            + " or pass -c " + IMAGE_CONTEXT + "=<account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<digest>"
            + " (docs/operations.md, \"Deploying the KCL worker image\")";

    /**
     * The container health check: the image has no shell, so its own JVM runs {@code
     * dev.sluice.kcl.health.HealthProbe} (placed in {@code /opt/sluice/health} by the image build),
     * which exits 0 when {@code /q/health/live} answers 2xx. Liveness, not readiness: ECS replaces an
     * unhealthy task, and a worker whose KCL scheduler gave up must be replaced (functions/kcl README).
     */
    public static final List<String> HEALTH_CHECK_COMMAND = List.of(
            "CMD",
            "/usr/bin/java",
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx16m",
            "-cp",
            "/opt/sluice/health",
            "dev.sluice.kcl.health.HealthProbe",
            "/q/health/live");

    /** Health check timings: every 30 s, 10 s to answer, 3 failures in a row, 60 s grace after start. */
    public static final Duration HEALTH_CHECK_INTERVAL = Duration.seconds(30);

    public static final Duration HEALTH_CHECK_TIMEOUT = Duration.seconds(10);

    public static final int HEALTH_CHECK_RETRIES = 3;

    public static final Duration HEALTH_CHECK_START_PERIOD = Duration.seconds(60);

    /** Partition key of the lease table (KCL's lease schema). */
    public static final String LEASE_KEY = "leaseKey";

    /** Attribute of the lease owner (KCL's lease schema). */
    public static final String LEASE_OWNER = "leaseOwner";

    /** The GSI KCL 3 queries for the leases of one worker. */
    public static final String LEASE_OWNER_INDEX = KclAccess.LEASE_OWNER_INDEX;

    /** Workers per stage: two, so a second one takes over the leases when one stops. */
    public static final int DESIRED_COUNT = 2;

    /** CPU units of a worker task (1 vCPU). */
    public static final int CPU = 1024;

    /** Memory of a worker task in MiB (2 GiB). */
    public static final int MEMORY_MIB = 2048;

    /** Time a worker gets between SIGTERM and SIGKILL to hand its leases over (Fargate's maximum). */
    public static final Duration STOP_TIMEOUT = Duration.seconds(120);

    /** Retention of the workers' log group. */
    public static final RetentionDays LOG_RETENTION = RetentionDays.ONE_MONTH;

    /** Actions CloudWatch Logs needs on the key to encrypt a log group (per the CloudWatch Logs guide). */
    private static final List<String> LOGS_KEY_ACTIONS =
            List.of("kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*");

    private final String stageName;
    private final String applicationName;
    private final String image;
    private final Path tarball;
    private final Table leaseTable;
    private final LogGroup logGroup;
    private final FargateTaskDefinition taskDefinition;
    private final ContainerDefinition container;
    private final FargateService service;
    private final Queue deadLetterQueue;
    private final boolean ecrImage;
    private final KclCluster kclCluster;

    KclStage(PipelineStack stack, String stageName, StageDefinition stage) {
        super(stack, "Stage" + LogicalNames.pascal(stageName));
        this.stageName = stageName;
        String pipeline = stack.getDefinition().pipeline();
        this.applicationName = applicationName(pipeline, stageName);
        Stream input = stack.getStream(stage.input());
        this.deadLetterQueue = stack.getQueue(stage.failure().deadLetterQueue());
        for (ReferenceDefinition reference : StageSteps.references(stack, stage)) {
            if (reference.table() == null) {
                throw new IllegalArgumentException("pipeline '" + pipeline + "', stage '" + stageName
                        + "': object references are not supported on consumer: kcl stages yet; use a table"
                        + " reference or consumer: lambda");
            }
        }

        this.leaseTable = leaseTable(stack);
        this.logGroup = encryptedLogGroup(this, "Logs", "/sluice/" + pipeline + "/" + stageName);

        ContainerImage containerImage;
        switch (imageSource(this)) {
            case DIGEST -> {
                this.image = digest(this);
                this.tarball = null;
                containerImage = ContainerImage.fromRegistry(image);
            }
            case LOCAL -> {
                this.image = LOCAL_IMAGE;
                this.tarball = null;
                containerImage = ContainerImage.fromRegistry(image);
            }
            case TARBALL -> {
                this.tarball = tarball(this);
                this.image = null; // the asset's URI, known once the container is bound (getImage)
                // a container image asset: cdk deploy loads the tarball with Docker and pushes it to the
                // bootstrap repository; the asset also lets the execution role pull from that repository only
                containerImage = ContainerImage.fromTarball(tarball.toString());
            }
            default -> throw new SynthesisRefusedException(missingImage(pipeline, List.of(stageName)));
        }

        this.taskDefinition = FargateTaskDefinition.Builder.create(this, "TaskDefinition")
                .cpu(CPU)
                .memoryLimitMiB(MEMORY_MIB)
                .runtimePlatform(RuntimePlatform.builder()
                        .cpuArchitecture(CpuArchitecture.ARM64)
                        .operatingSystemFamily(OperatingSystemFamily.LINUX)
                        .build())
                .build();
        this.container = taskDefinition.addContainer(
                "Worker",
                ContainerDefinitionOptions.builder()
                        .image(containerImage)
                        .essential(true)
                        .stopTimeout(STOP_TIMEOUT)
                        .healthCheck(HealthCheck.builder()
                                .command(HEALTH_CHECK_COMMAND)
                                .interval(HEALTH_CHECK_INTERVAL)
                                .timeout(HEALTH_CHECK_TIMEOUT)
                                .retries(HEALTH_CHECK_RETRIES)
                                .startPeriod(HEALTH_CHECK_START_PERIOD)
                                .build())
                        .environment(environment(stack, stage, input))
                        .logging(LogDrivers.awsLogs(AwsLogDriverProps.builder()
                                .logGroup(logGroup)
                                .streamPrefix("worker")
                                .build()))
                        .build());
        // an image by digest is pulled from its repository; the tarball's asset grants its own pull
        this.ecrImage = tarball != null || grantImagePull(stack);

        this.kclCluster = KclCluster.of(stack);
        this.service = FargateService.Builder.create(this, "Service")
                .cluster(kclCluster.getCluster())
                .taskDefinition(taskDefinition)
                .desiredCount(DESIRED_COUNT)
                // a new worker starts before an old one stops: leases move, processing never pauses
                .minHealthyPercent(100)
                .maxHealthyPercent(200)
                .circuitBreaker(
                        DeploymentCircuitBreaker.builder().rollback(true).build())
                .vpcSubnets(SubnetSelection.builder()
                        .subnetType(SubnetType.PRIVATE_WITH_EGRESS)
                        .build())
                .assignPublicIp(false)
                .build();

        grants(stack, stage, input);
        ResourceMetadata.mark(leaseTable, ResourceMetadata.KIND_KCL_LEASE_TABLE, stageName);
        ResourceMetadata.mark(taskDefinition, ResourceMetadata.KIND_KCL_TASK_DEFINITION, stageName);
        ResourceMetadata.mark(service, ResourceMetadata.KIND_KCL_SERVICE, stageName);
    }

    /**
     * Where the worker images of the KCL stages under {@code scope} come from: {@value #IMAGE_CONTEXT}
     * first, then the local stack's {@value #LOCAL_WORKERS_CONTEXT}, then {@value #IMAGE_TARBALL_CONTEXT};
     * {@link ImageSource#NONE} without any.
     *
     * @throws SynthesisRefusedException when {@value #IMAGE_CONTEXT} is not an ECR image by digest, or
     *     {@value #IMAGE_TARBALL_CONTEXT} names no file: a value given but wrong is not ignored
     */
    static ImageSource imageSource(Construct scope) {
        if (!blank(scope.getNode().tryGetContext(IMAGE_CONTEXT))) {
            digest(scope);
            return ImageSource.DIGEST;
        }
        if (Boolean.parseBoolean(String.valueOf(scope.getNode().tryGetContext(LOCAL_WORKERS_CONTEXT)))) {
            return ImageSource.LOCAL;
        }
        if (!blank(scope.getNode().tryGetContext(IMAGE_TARBALL_CONTEXT))) {
            tarball(scope);
            return ImageSource.TARBALL;
        }
        return ImageSource.NONE;
    }

    /**
     * The one line saying that the {@code consumer: kcl} stages of a pipeline have no worker image and how
     * to get one.
     */
    static String missingImage(String pipeline, List<String> stageNames) {
        String stages = stageNames.stream().map(name -> "'" + name + "'").collect(Collectors.joining(", "));
        return "pipeline '" + pipeline + "', stage" + (stageNames.size() == 1 ? " " : "s ") + stages
                + " (consumer: kcl) has no worker image (context " + IMAGE_CONTEXT + " or " + IMAGE_TARBALL_CONTEXT
                + "): " + HOW_TO_GET_AN_IMAGE;
    }

    private static boolean blank(Object value) {
        return value == null || value.toString().isBlank();
    }

    /** {@value #IMAGE_CONTEXT}, which must be an ECR image by digest. */
    private static String digest(Construct scope) {
        String image = scope.getNode().tryGetContext(IMAGE_CONTEXT).toString().trim();
        if (!IMAGE_BY_DIGEST.matcher(image).matches()) {
            throw new SynthesisRefusedException("context " + IMAGE_CONTEXT + " must be an ECR image by digest,"
                    + " <account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<64 hex digits> (a tag can be"
                    + " moved; the digest is the image that was built and checked), not '" + image + "'");
        }
        return image;
    }

    /** {@value #IMAGE_TARBALL_CONTEXT}, which must name a file. */
    private static Path tarball(Construct scope) {
        Path tarball = Path.of(scope.getNode()
                        .tryGetContext(IMAGE_TARBALL_CONTEXT)
                        .toString()
                        .trim())
                .toAbsolutePath()
                .normalize();
        if (!Files.isRegularFile(tarball)) {
            throw new SynthesisRefusedException("the worker image tarball " + tarball + " (context "
                    + IMAGE_TARBALL_CONTEXT + ") does not exist: build it with " + BUILD_TARBALL
                    + ", or point " + IMAGE_TARBALL_CONTEXT + " at the arm64 tarball");
        }
        return tarball;
    }

    /** The KCL application name of a stage: {@code sluice-<pipeline>-<stage>}. */
    public static String applicationName(String pipeline, String stageName) {
        return SluiceApp.STACK_PREFIX + pipeline + "-" + stageName;
    }

    private Table leaseTable(PipelineStack stack) {
        // like the pipeline's other tables: on-demand, the pipeline's tables key, PITR, default removal policy
        Table table = Table.Builder.create(this, "LeaseTable")
                .partitionKey(Attribute.builder()
                        .name(LEASE_KEY)
                        .type(AttributeType.STRING)
                        .build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .encryption(TableEncryption.CUSTOMER_MANAGED)
                .encryptionKey(stack.getKey(PipelineKeys.Use.TABLES))
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder()
                        .pointInTimeRecoveryEnabled(true)
                        .build())
                .deletionProtection(true) // like every table of the stack
                .build();
        table.addGlobalSecondaryIndex(GlobalSecondaryIndexProps.builder()
                .indexName(LEASE_OWNER_INDEX)
                .partitionKey(Attribute.builder()
                        .name(LEASE_OWNER)
                        .type(AttributeType.STRING)
                        .build())
                .sortKey(Attribute.builder()
                        .name(LEASE_KEY)
                        .type(AttributeType.STRING)
                        .build())
                .projectionType(ProjectionType.KEYS_ONLY)
                .build());
        return table;
    }

    /** Names, URLs and ARNs only (never a secret's value). */
    private Map<String, String> environment(PipelineStack stack, StageDefinition stage, Stream input) {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put(EnvironmentNames.PIPELINE, stack.getDefinition().pipeline());
        environment.put(EnvironmentNames.STAGE, stageName);
        environment.put(EnvironmentNames.KCL_APPLICATION, applicationName);
        environment.put(EnvironmentNames.KCL_STREAM, input.getStreamName());
        environment.put(EnvironmentNames.KCL_LEASE_TABLE, leaseTable.getTableName());
        environment.put(EnvironmentNames.queueUrl(stage.failure().deadLetterQueue()), deadLetterQueue.getQueueUrl());
        // the bucket of the dead-letter claim checks (records too large for a message)
        stack.getLakeBucket()
                .ifPresent(bucket -> environment.put(EnvironmentNames.LAKE_BUCKET, bucket.getBucketName()));
        for (SinkDefinition sink : stage.sinks()) {
            switch (sink.kind()) {
                case TABLE ->
                    environment.put(
                            EnvironmentNames.table(sink.table()),
                            stack.getTable(sink.table()).getTableName());
                case STREAM ->
                    environment.put(
                            EnvironmentNames.stream(sink.stream()),
                            stack.getStream(sink.stream()).getStreamName());
                case LAKE -> {
                    // the lake sink's bucket and its per-shard commit ledger, as for a Lambda stage
                    environment.put(
                            EnvironmentNames.LAKE_BUCKET,
                            stack.getLakeBucket()
                                    .orElseThrow(() -> new IllegalStateException(
                                            "pipeline '" + stack.getDefinition().pipeline() + "' has no lake bucket"))
                                    .getBucketName());
                    environment.put(
                            EnvironmentNames.LEDGER_TABLE,
                            stack.getLedgerTable()
                                    .orElseThrow(() -> new IllegalStateException("pipeline '"
                                            + stack.getDefinition().pipeline() + "' has no lake ledger table"))
                                    .getTableName());
                }
            }
        }
        for (String table : StageSteps.aggregateTables(stage)) {
            environment.put(EnvironmentNames.table(table), stack.getTable(table).getTableName());
        }
        for (ReferenceDefinition reference : StageSteps.references(stack, stage)) {
            environment.put(
                    EnvironmentNames.table(reference.table()),
                    stack.getTable(reference.table()).getTableName());
        }
        for (String secret : StageSteps.secrets(stage)) {
            environment.put(
                    EnvironmentNames.secretId(secret), stack.getSecret(secret).getSecretArn());
        }
        return environment;
    }

    /**
     * Exactly what the stage's code declares (sluice-aws's {@code StageAccess}) and what its KCL
     * workers call ({@link KclAccess}): nothing else.
     */
    private void grants(PipelineStack stack, StageDefinition stage, Stream input) {
        IRole role = taskDefinition.getTaskRole();
        StageGrants grants = new StageGrants(stack, leaseTable, applicationName);
        grants.grant(
                role,
                Access.merge(java.util.stream.Stream.concat(
                                StageAccess.of(stack.getDefinition(), stageName).stream(),
                                KclAccess.of(stage.input(), applicationName).stream())
                        .toList()));
    }

    /** The ARN of the lease table's {@value #LEASE_OWNER_INDEX}. */
    String leaseOwnerIndexArn() {
        return leaseTable.getTableArn() + "/index/" + LEASE_OWNER_INDEX;
    }

    /**
     * For an image in a private ECR repository: lets the task execution role pull it (that
     * repository only, and {@code ecr:GetAuthorizationToken}, which takes no resource).
     */
    private boolean grantImagePull(PipelineStack stack) {
        Matcher ecr = IMAGE_BY_DIGEST.matcher(image);
        if (!ecr.matches()) {
            return false;
        }
        IRole execution = taskDefinition.obtainExecutionRole();
        String repository = "arn:" + stack.getPartition() + ":ecr:" + ecr.group(2) + ":" + ecr.group(1) + ":repository/"
                + ecr.group(3);
        execution.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(List.of("ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"))
                .resources(List.of(repository))
                .build());
        execution.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(List.of("ecr:GetAuthorizationToken"))
                .resources(List.of("*"))
                .build());
        return true;
    }

    /**
     * A log group {@code name} encrypted with the pipeline's logs key, which CloudWatch Logs may use for
     * that log group only; kept {@link #LOG_RETENTION}.
     */
    static LogGroup encryptedLogGroup(Construct scope, String id, String name) {
        PipelineStack stack = (PipelineStack) Stack.of(scope);
        String arn = stack.formatArn(ArnComponents.builder()
                .service("logs")
                .resource("log-group")
                .resourceName(name)
                .arnFormat(ArnFormat.COLON_RESOURCE_NAME)
                .build());
        stack.getKey(PipelineKeys.Use.LOGS)
                .grant(
                        new ServicePrincipal("logs." + stack.getRegion() + ".amazonaws.com")
                                .withConditions(Map.of("ArnEquals", Map.of("kms:EncryptionContext:aws:logs:arn", arn))),
                        LOGS_KEY_ACTIONS.toArray(String[]::new));
        return LogGroup.Builder.create(scope, id)
                .logGroupName(name)
                .encryptionKey(stack.getKey(PipelineKeys.Use.LOGS))
                .retention(LOG_RETENTION)
                .build();
    }

    /** The stage's name in the pipeline definition. */
    public String getStageName() {
        return stageName;
    }

    /** The KCL application name ({@link #applicationName}), also the namespace of KCL's metrics. */
    public String getApplicationName() {
        return applicationName;
    }

    /**
     * The image the workers run: the {@value #IMAGE_CONTEXT} context value, {@link #LOCAL_IMAGE} locally,
     * or the tarball asset's URI in the bootstrap repository (a token until deployment).
     */
    public String getImage() {
        return image != null ? image : container.getImageName();
    }

    /** The image tarball of the container image asset, when the image comes from {@value #IMAGE_TARBALL_CONTEXT}. */
    public Optional<Path> getImageTarball() {
        return Optional.ofNullable(tarball);
    }

    /**
     * Whether the image is in a private ECR repository (the execution role may pull it): an image by
     * digest, or the tarball's asset in the bootstrap repository.
     */
    public boolean isEcrImage() {
        return ecrImage;
    }

    /** The lease table the stack provisions for the stage's KCL application. */
    public Table getLeaseTable() {
        return leaseTable;
    }

    /** The workers' log group, {@code /sluice/<pipeline>/<stage>}, encrypted with the pipeline's logs key. */
    public LogGroup getLogGroup() {
        return logGroup;
    }

    /** The workers' Fargate task definition. */
    public FargateTaskDefinition getTaskDefinition() {
        return taskDefinition;
    }

    /** The worker container. */
    public ContainerDefinition getContainer() {
        return container;
    }

    /** The Fargate service running {@link #DESIRED_COUNT} workers. */
    public FargateService getService() {
        return service;
    }

    /** The VPC and ECS cluster the pipeline's KCL stages share. */
    public KclCluster getKclCluster() {
        return kclCluster;
    }

    /** The stage's dead-letter queue. */
    public Queue getDeadLetterQueue() {
        return deadLetterQueue;
    }
}
