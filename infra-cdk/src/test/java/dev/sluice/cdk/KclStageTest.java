package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.iam.IRole;

/**
 * Clickstream's {@code page-counts} ({@code consumer: kcl}) as a Fargate service of KCL workers: its
 * lease table, task definition, service, cluster and task role, synthesized with an ECR image given
 * as {@value KclStage#IMAGE_CONTEXT} and with the cdk-nag packs applied.
 */
class KclStageTest {

    static final String IMAGE = TestApps.KCL_IMAGE;

    @TempDir
    static Path dir;

    private static PipelineStack stack;
    private static KclStage stage;
    private static Template template;

    @BeforeAll
    static void synthesize() throws Exception {
        App app = new App(AppProps.builder()
                .outdir(dir.resolve("cdk.out").toString())
                .context(Map.of(
                        SluiceApp.LAMBDA_ARTIFACT_CONTEXT,
                        TestApps.lambdaZip(dir).toString(),
                        KclStage.IMAGE_CONTEXT,
                        IMAGE))
                .build());
        stack = SluiceApp.addPipelines(app, SluiceRoot.locate()).stream()
                .filter(s -> s.getDefinition().pipeline().equals("clickstream"))
                .findFirst()
                .orElseThrow();
        NagChecks.apply(app);
        stage = stack.getKclStage("page-counts");
        template = Template.fromStack(stack);
    }

    // ---- lease table

    @Test
    void leaseTableIsProvisionedWithKclsSchemaAndGsi() {
        template.hasResourceProperties(
                "AWS::DynamoDB::Table",
                Match.objectLike(Map.of(
                        "KeySchema",
                        List.of(Map.of("AttributeName", "leaseKey", "KeyType", "HASH")),
                        "AttributeDefinitions",
                        Match.arrayEquals(List.of(
                                Map.of("AttributeName", "leaseKey", "AttributeType", "S"),
                                Map.of("AttributeName", "leaseOwner", "AttributeType", "S"))),
                        "GlobalSecondaryIndexes",
                        List.of(Map.of(
                                "IndexName",
                                "LeaseOwnerToLeaseKeyIndex",
                                "KeySchema",
                                List.of(
                                        Map.of("AttributeName", "leaseOwner", "KeyType", "HASH"),
                                        Map.of("AttributeName", "leaseKey", "KeyType", "RANGE")),
                                "Projection",
                                Map.of("ProjectionType", "KEYS_ONLY"))),
                        "BillingMode",
                        "PAY_PER_REQUEST")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void leaseTableIsEncryptedWithThePipelineKeyHasPitrAndIsRetainedLikeTheOtherTables() {
        Map<String, Object> lease =
                template.findResources("AWS::DynamoDB::Table").get(TestApps.logicalId(stage.getLeaseTable()));
        Map<String, Object> serving = template.findResources("AWS::DynamoDB::Table")
                .get(TestApps.logicalId(stack.getTable("page-views-per-minute")));
        Map<String, Object> properties = (Map<String, Object>) lease.get("Properties");
        assertThat(properties.get("SSESpecification"))
                .isEqualTo(Map.of(
                        "KMSMasterKeyId",
                        getAtt(stack.getKey(PipelineKeys.Use.TABLES), "Arn"),
                        "SSEEnabled",
                        true,
                        "SSEType",
                        "KMS"));
        assertThat(properties.get("PointInTimeRecoverySpecification"))
                .isEqualTo(Map.of("PointInTimeRecoveryEnabled", true));
        // no physical name: CloudFormation names it, the workers get the name from their environment
        assertThat(properties).doesNotContainKey("TableName");
        // deletion protection, deletion and replace policies exactly like the serving tables'
        Map<String, Object> servingProperties = (Map<String, Object>) serving.get("Properties");
        assertThat(properties.get("DeletionProtectionEnabled"))
                .isEqualTo(servingProperties.get("DeletionProtectionEnabled"));
        assertThat(lease.get("DeletionPolicy")).isEqualTo(serving.get("DeletionPolicy"));
        assertThat(lease.get("UpdateReplacePolicy")).isEqualTo(serving.get("UpdateReplacePolicy"));
    }

    // ---- service, task definition, cluster

    @Test
    void serviceRunsTwoFargateWorkersInPrivateSubnets() {
        template.resourceCountIs("AWS::ECS::Service", 1);
        template.hasResourceProperties(
                "AWS::ECS::Service",
                Match.objectLike(Map.of(
                        "DesiredCount",
                        2,
                        "LaunchType",
                        "FARGATE",
                        "Cluster",
                        ref(stage.getKclCluster().getCluster()),
                        "TaskDefinition",
                        ref(stage.getTaskDefinition()),
                        "DeploymentConfiguration",
                        Match.objectLike(Map.of("MinimumHealthyPercent", 100, "MaximumPercent", 200)),
                        "NetworkConfiguration",
                        Map.of("AwsvpcConfiguration", Match.objectLike(Map.of("AssignPublicIp", "DISABLED"))))));
    }

    @Test
    void taskDefinitionRunsTheImageFromContextWithOneVcpuAndTwoGib() {
        template.hasResourceProperties(
                "AWS::ECS::TaskDefinition",
                Match.objectLike(Map.of(
                        "Cpu",
                        "1024",
                        "Memory",
                        "2048",
                        "RequiresCompatibilities",
                        List.of("FARGATE"),
                        "NetworkMode",
                        "awsvpc",
                        "ContainerDefinitions",
                        List.of(Match.objectLike(Map.of(
                                "Image",
                                IMAGE,
                                "Essential",
                                true,
                                "LogConfiguration",
                                Map.of(
                                        "LogDriver",
                                        "awslogs",
                                        "Options",
                                        Match.objectLike(Map.of("awslogs-group", ref(stage.getLogGroup()))))))))));
        assertThat(stage.getImage()).isEqualTo(IMAGE);
        assertThat(stage.isEcrImage()).isTrue();
    }

    @Test
    void workerIsHealthCheckedByTheImagesProbeOnLiveness() {
        template.hasResourceProperties(
                "AWS::ECS::TaskDefinition",
                Match.objectLike(Map.of(
                        "ContainerDefinitions",
                        List.of(Match.objectLike(Map.of(
                                "HealthCheck",
                                Map.of(
                                        "Command",
                                        List.of(
                                                "CMD",
                                                "/usr/bin/java",
                                                "-XX:TieredStopAtLevel=1",
                                                "-XX:+UseSerialGC",
                                                "-Xmx16m",
                                                "-cp",
                                                "/opt/sluice/health",
                                                "dev.sluice.kcl.health.HealthProbe",
                                                "/q/health/live"),
                                        "Interval",
                                        30,
                                        "Timeout",
                                        10,
                                        "Retries",
                                        3,
                                        "StartPeriod",
                                        60)))))));
    }

    @Test
    @SuppressWarnings("unchecked")
    void environmentHoldsResourceNamesAndKclSettingsOnly() {
        Map<String, Object> taskDefinition =
                template.findResources("AWS::ECS::TaskDefinition").get(TestApps.logicalId(stage.getTaskDefinition()));
        Map<String, Object> container = ((List<Map<String, Object>>)
                        ((Map<String, Object>) taskDefinition.get("Properties")).get("ContainerDefinitions"))
                .get(0);
        Map<String, Object> environment = new TreeMap<>();
        for (Map<String, Object> variable : (List<Map<String, Object>>) container.get("Environment")) {
            environment.put((String) variable.get("Name"), variable.get("Value"));
        }
        assertThat(environment)
                .containsOnly(
                        Map.entry("SLUICE_PIPELINE", "clickstream"),
                        Map.entry("SLUICE_STAGE", "page-counts"),
                        Map.entry("SLUICE_KCL_APPLICATION", "sluice-clickstream-page-counts"),
                        Map.entry("SLUICE_KCL_STREAM", ref(stack.getStream("clicks-by-page"))),
                        Map.entry("SLUICE_KCL_LEASE_TABLE", ref(stage.getLeaseTable())),
                        Map.entry("SLUICE_QUEUE_URL_CLICKS_DLQ", ref(stack.getQueue("clicks-dlq"))),
                        Map.entry("SLUICE_TABLE_PAGE_VIEWS_PER_MINUTE", ref(stack.getTable("page-views-per-minute"))),
                        Map.entry("SLUICE_TABLE_PAGE_CATALOGUE", ref(stack.getTable("page-catalogue"))),
                        // the deduplicate table behind the re-key hop
                        Map.entry("SLUICE_TABLE_CLICKS_BY_ID", ref(stack.getTable("clicks-by-id"))),
                        // where records too large for a dead-letter message go (the claim check)
                        Map.entry(
                                "SLUICE_LAKE_BUCKET", ref(stack.getLakeBucket().orElseThrow())));
        assertThat(container).doesNotContainKey("Secrets");
        assertThat(SecretLookingValues.in(environment, TemplateQueries.secretLogicalIds(template)))
                .isEmpty();
    }

    @Test
    void logGroupIsEncryptedWithThePipelineKeyAndExpires() {
        template.hasResourceProperties(
                "AWS::Logs::LogGroup",
                Map.of(
                        "LogGroupName",
                        "/sluice/clickstream/page-counts",
                        "KmsKeyId",
                        getAtt(stack.getKey(PipelineKeys.Use.LOGS), "Arn"),
                        "RetentionInDays",
                        30));
    }

    @Test
    void clusterHasContainerInsightsAndTheVpcFlowLogsAndOneNatGateway() {
        template.resourceCountIs("AWS::ECS::Cluster", 1);
        template.hasResourceProperties(
                "AWS::ECS::Cluster",
                Map.of("ClusterSettings", List.of(Map.of("Name", "containerInsights", "Value", "enabled"))));
        template.resourceCountIs("AWS::EC2::VPC", 1);
        template.resourceCountIs("AWS::EC2::NatGateway", 1);
        template.hasResourceProperties(
                "AWS::EC2::FlowLog",
                Match.objectLike(Map.of(
                        "ResourceId",
                        ref(stage.getKclCluster().getVpc()),
                        "TrafficType",
                        "ALL",
                        "LogGroupName",
                        ref(stage.getKclCluster().getFlowLogs()))));
        template.hasResourceProperties(
                "AWS::Logs::LogGroup",
                Match.objectLike(Map.of(
                        "LogGroupName",
                        "/sluice/clickstream/vpc-flow-logs",
                        "KmsKeyId",
                        getAtt(stack.getKey(PipelineKeys.Use.LOGS), "Arn"))));
    }

    // ---- task role

    /** The ARN of a table KCL names after the application, as the template writes it. */
    private Object legacyTable(String suffix) {
        return stack.resolve(stack.formatArn(software.amazon.awscdk.ArnComponents.builder()
                .service("dynamodb")
                .resource("table")
                .resourceName(stage.getApplicationName() + suffix)
                .arnFormat(software.amazon.awscdk.ArnFormat.SLASH_RESOURCE_NAME)
                .build()));
    }

    @Test
    void taskRoleHasExactlyTheseActionsPerResource() {
        Map<String, Object> stream = getAtt(stack.getStream("clicks-by-page"), "Arn");
        Map<String, Object> lease = getAtt(stage.getLeaseTable(), "Arn");
        Map<String, Object> index = Map.of("Fn::Join", List.of("", List.of(lease, "/index/LeaseOwnerToLeaseKeyIndex")));
        Object coordinatorState = legacyTable("-CoordinatorState");
        Object workerMetrics = legacyTable("-WorkerMetricStats");
        Map<String, Object> claimChecks = Map.of(
                "Fn::Join",
                List.of(
                        "",
                        List.of(
                                getAtt(stack.getLakeBucket().orElseThrow(), "Arn"),
                                "/sluice-dead-letters/clicks-dlq/*")));
        Map<Object, TreeSet<String>> actions =
                actionsByResource(stage.getTaskDefinition().getTaskRole());

        assertThat(actions)
                .containsOnlyKeys(
                        stream,
                        lease,
                        index,
                        coordinatorState,
                        workerMetrics,
                        getAtt(stack.getTable("page-views-per-minute"), "Arn"),
                        getAtt(stack.getTable("page-catalogue"), "Arn"),
                        getAtt(stack.getTable("clicks-by-id"), "Arn"),
                        getAtt(stack.getQueue("clicks-dlq"), "Arn"),
                        getAtt(stack.getKey(PipelineKeys.Use.STREAMS), "Arn"),
                        getAtt(stack.getKey(PipelineKeys.Use.TABLES), "Arn"),
                        getAtt(stack.getKey(PipelineKeys.Use.DEAD_LETTERS), "Arn"),
                        claimChecks,
                        getAtt(stack.getKey(PipelineKeys.Use.LAKE), "Arn"),
                        "*");
        assertThat(actions.get(claimChecks)).containsExactly("s3:PutObject");
        assertThat(actions.get(getAtt(stack.getKey(PipelineKeys.Use.LAKE), "Arn")))
                .containsExactly("kms:GenerateDataKey");
        // polling only: no fan-out consumer (RegisterStreamConsumer, SubscribeToShard, DescribeStreamConsumer)
        assertThat(actions.get(stream))
                .containsExactly(
                        "kinesis:DescribeStreamSummary",
                        "kinesis:GetRecords",
                        "kinesis:GetShardIterator",
                        "kinesis:ListShards");
        assertThat(actions.get(lease))
                .containsExactly(
                        "dynamodb:DeleteItem",
                        "dynamodb:DescribeTable",
                        "dynamodb:GetItem",
                        "dynamodb:PutItem",
                        "dynamodb:Query",
                        "dynamodb:Scan",
                        "dynamodb:UpdateItem");
        assertThat(actions.get(index)).containsExactly("dynamodb:Query");
        // KCL's legacy-table check describes them (and tolerates only ResourceNotFound)
        assertThat(actions.get(coordinatorState)).containsExactly("dynamodb:DescribeTable");
        assertThat(actions.get(workerMetrics)).containsExactly("dynamodb:DescribeTable");
        assertThat(actions.get(getAtt(stack.getTable("page-views-per-minute"), "Arn")))
                .containsExactly("dynamodb:GetItem", "dynamodb:UpdateItem");
        assertThat(actions.get(getAtt(stack.getTable("page-catalogue"), "Arn"))).containsExactly("dynamodb:Scan");
        // the deduplicate table: the conditional put, and the consistent read of a refused one
        assertThat(actions.get(getAtt(stack.getTable("clicks-by-id"), "Arn")))
                .containsExactly("dynamodb:GetItem", "dynamodb:PutItem");
        assertThat(actions.get(getAtt(stack.getQueue("clicks-dlq"), "Arn"))).containsExactly("sqs:SendMessage");
        // each key is used for its own store only: read the stream, write tables, send dead letters
        assertThat(actions.get(getAtt(stack.getKey(PipelineKeys.Use.STREAMS), "Arn")))
                .containsExactly("kms:Decrypt");
        assertThat(actions.get(getAtt(stack.getKey(PipelineKeys.Use.TABLES), "Arn")))
                .containsExactly("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey");
        assertThat(actions.get(getAtt(stack.getKey(PipelineKeys.Use.DEAD_LETTERS), "Arn")))
                .containsExactly("kms:Decrypt", "kms:GenerateDataKey");
        assertThat(actions.get("*")).containsExactly("cloudwatch:PutMetricData");
        assertThat(TemplateQueries.allowing(
                        TemplateQueries.statementsOf(
                                template, stage.getTaskDefinition().getTaskRole()),
                        "cloudwatch:PutMetricData"))
                .singleElement()
                .satisfies(statement -> assertThat(statement.get("Condition"))
                        .isEqualTo(Map.of(
                                "StringEquals", Map.of("cloudwatch:namespace", "sluice-clickstream-page-counts"))));
    }

    @Test
    void restrictedStreamIsReadableOnlyByTheStageReadingIt() {
        // clicks-raw (restricted) is read by mask-and-rekey only; page-counts reads clicks-by-page only
        for (String stream : List.of("clicks-raw", "clicks-by-page")) {
            Map<String, Object> arn = getAtt(stack.getStream(stream), "Arn");
            boolean lambdaReads = actionsByResource(
                            stack.getLambdaStage("mask-and-rekey").getFunction().getRole())
                    .getOrDefault(arn, new TreeSet<>())
                    .contains("kinesis:GetRecords");
            boolean kclReads = actionsByResource(stage.getTaskDefinition().getTaskRole())
                    .getOrDefault(arn, new TreeSet<>())
                    .contains("kinesis:GetRecords");
            assertThat(lambdaReads).as("mask-and-rekey reads " + stream).isEqualTo(stream.equals("clicks-raw"));
            assertThat(kclReads).as("page-counts reads " + stream).isEqualTo(stream.equals("clicks-by-page"));
        }
        assertThat(actionsByResource(stage.getTaskDefinition().getTaskRole()))
                .doesNotContainKey(getAtt(stack.getStream("clicks-raw"), "Arn"));
    }

    @Test
    void executionRoleMayPullFromTheImagesRepositoryOnly() {
        Map<Object, TreeSet<String>> actions =
                actionsByResource(stage.getTaskDefinition().getExecutionRole());
        Map<String, Object> repository = Map.of(
                "Fn::Join",
                List.of(
                        "",
                        List.of(
                                "arn:",
                                Map.of("Ref", "AWS::Partition"),
                                ":ecr:eu-west-1:123456789012:repository/sluice-kcl")));
        assertThat(actions.get(repository))
                .containsExactly("ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer");
        assertThat(actions.get("*")).containsExactly("ecr:GetAuthorizationToken");
        assertThat(actions.get(getAtt(stage.getLogGroup(), "Arn")))
                .containsExactly("logs:CreateLogStream", "logs:PutLogEvents");
    }

    // ---- cdk-nag

    @Test
    void nagPacksStayCleanWithAnEcrImage() {
        assertThat(NagChecks.errors(stack)).isEmpty();
        assertThat(NagChecks.warnings(stack)).isEmpty();
        assertThat(NagChecks.suppressed(stack))
                .anyMatch(m -> m.getId().contains("StagePageCounts/TaskDefinition/ExecutionRole"));
    }

    /** Every resource the role's identity policies name, with the union of the actions allowed on it. */
    private static Map<Object, TreeSet<String>> actionsByResource(IRole role) {
        Map<Object, TreeSet<String>> out = new java.util.LinkedHashMap<>();
        for (Map<String, Object> statement : TemplateQueries.statementsOf(template, role)) {
            assertThat(statement.get("Effect")).isEqualTo("Allow");
            List<String> actions = new ArrayList<>();
            TemplateQueries.actions(statement).forEach(a -> actions.add((String) a));
            for (Object resource : TemplateQueries.resources(statement)) {
                if (!Map.of("Ref", "AWS::NoValue").equals(resource)) {
                    out.computeIfAbsent(resource, r -> new TreeSet<>()).addAll(actions);
                }
            }
        }
        return out;
    }
}
