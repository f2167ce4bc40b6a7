package dev.sluice.cdk;

import static dev.sluice.cdk.TestApps.getAtt;
import static dev.sluice.cdk.TestApps.ref;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StreamDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;

/** The stack synthesized from {@code pipelines/payments.yaml}; one synth per JVM ({@link RepositoryPipelines}). */
class PaymentsPipelineStackTest {

    private static PipelineStack stack;
    private static PipelineDefinition definition;
    private static Template template;

    @BeforeAll
    static void synthesize() throws Exception {
        RepositoryPipelines pipelines = RepositoryPipelines.get();
        stack = pipelines.stack("payments");
        definition = stack.getDefinition();
        template = pipelines.template(stack);
    }

    @Test
    void stackIsNamedAfterThePipeline() {
        assertThat(stack.getStackName()).isEqualTo("sluice-payments");
    }

    @Test
    void synthesizesExactlyTheDeclaredStreamsTablesAndQueues() {
        assertThat(definition.streams()).hasSize(1);
        assertThat(definition.tables()).hasSize(2);
        assertThat(definition.queues()).hasSize(1);
        template.resourceCountIs("AWS::Kinesis::Stream", definition.streams().size());
        // the serving tables and the lake's commit ledger
        template.resourceCountIs("AWS::DynamoDB::Table", definition.tables().size() + 1);
        template.resourceCountIs("AWS::SQS::Queue", definition.queues().size());
        template.resourceCountIs("AWS::S3::Bucket", 2); // the lake and its access logs
        template.hasResourceProperties(
                "AWS::S3::Bucket",
                Map.of(
                        "LoggingConfiguration",
                        Map.of(
                                "DestinationBucketName",
                                TestApps.ref(stack.getLakeAccessLogsBucket().orElseThrow()),
                                "LogFilePrefix",
                                "lake/")));
        template.resourceCountIs("AWS::Lambda::Function", 1);
        template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
        template.resourceCountIs("AWS::KMS::Key", PipelineKeys.Use.values().length);
        template.resourceCountIs("AWS::SecretsManager::Secret", 1);
        assertThat(stack.getSecrets()).containsOnlyKeys("tokenization-key");
        assertThat(stack.getSkippedStages()).isEmpty();
    }

    @Test
    void everyKeyIsCustomerManagedWithRotationAndAnAlias() {
        template.allResourcesProperties("AWS::KMS::Key", Match.objectLike(Map.of("EnableKeyRotation", true)));
        for (PipelineKeys.Use use : PipelineKeys.Use.values()) {
            template.hasResourceProperties(
                    "AWS::KMS::Alias",
                    Map.of(
                            "AliasName",
                            "alias/sluice/payments/" + use.aliasName(),
                            "TargetKeyId",
                            getAtt(stack.getKey(use), "Arn")));
        }
    }

    @Test
    void everyKeyIsPinnedToItsServicesForDataOperations() {
        Map<String, Map<String, Object>> keys = template.findResources("AWS::KMS::Key");
        for (PipelineKeys.Use use : PipelineKeys.Use.values()) {
            @SuppressWarnings("unchecked")
            Map<String, Object> policy = (Map<String, Object>) ((Map<String, Object>)
                            keys.get(TestApps.logicalId(stack.getKey(use))).get("Properties"))
                    .get("KeyPolicy");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> statements = (List<Map<String, Object>>) policy.get("Statement");
            Map<String, Object> pin = statements.stream()
                    .filter(statement -> PipelineKeys.PIN_STATEMENT_SID.equals(statement.get("Sid")))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(use + " key has no pin statement"));
            assertThat(pin)
                    .as(use.aliasName())
                    .containsEntry("Effect", "Deny")
                    .containsEntry("Principal", Map.of("AWS", "*"))
                    .containsEntry("Action", PipelineKeys.CRYPTO_ACTIONS)
                    .containsEntry("Resource", "*");
            Map<String, Object> conditions = new java.util.LinkedHashMap<>();
            // AWS services acting as themselves (CloudWatch Logs, alarms publishing to SNS) are not pinned
            conditions.put("Bool", Map.of("aws:PrincipalIsAWSService", "false"));
            if (use == PipelineKeys.Use.LOGS) {
                // the logs key has no service to go through: only CloudWatch Logs itself may use it
                assertThat(use.services()).isEmpty();
            } else {
                conditions.put(
                        "StringNotEquals",
                        Map.of(
                                "kms:ViaService",
                                use.services().stream()
                                        .map(service -> (Object) Map.of(
                                                "Fn::Join",
                                                List.of(
                                                        "",
                                                        List.of(
                                                                service + ".",
                                                                Map.of("Ref", "AWS::Region"),
                                                                ".amazonaws.com"))))
                                        .toList()));
            }
            assertThat(pin.get("Condition")).as(use.aliasName()).isEqualTo(conditions);
        }
        assertThat(PipelineKeys.Use.STREAMS.services()).containsExactly("kinesis");
        assertThat(PipelineKeys.Use.TABLES.services()).containsExactly("dynamodb");
        assertThat(PipelineKeys.Use.LAKE.services()).containsExactly("s3");
        assertThat(PipelineKeys.Use.DEAD_LETTERS.services()).containsExactly("sqs");
        assertThat(PipelineKeys.Use.MESSAGING.services()).containsExactly("sns");
        assertThat(PipelineKeys.Use.SECRETS.services()).containsExactly("secretsmanager");
    }

    @Test
    void streamIsEncryptedWithThePipelineKeyAndHasTheDeclaredShardsAndRetention() {
        StreamDefinition declared = definition.stream("payments-raw");
        assertThat(declared.shards()).isEqualTo(2);
        assertThat(declared.retentionHours()).isEqualTo(24);
        template.hasResourceProperties(
                "AWS::Kinesis::Stream",
                Map.of(
                        "ShardCount",
                        2,
                        "RetentionPeriodHours",
                        24,
                        "StreamModeDetails",
                        Map.of("StreamMode", "PROVISIONED"),
                        "StreamEncryption",
                        Map.of(
                                "EncryptionType",
                                "KMS",
                                "KeyId",
                                getAtt(stack.getKey(PipelineKeys.Use.STREAMS), "Arn"))));
    }

    @Test
    void eventSourceMappingCarriesTheStageBatchingAndFailurePolicy() {
        LambdaStage validate = stack.getLambdaStage("validate");
        template.hasResourceProperties(
                "AWS::Lambda::EventSourceMapping",
                Map.ofEntries(
                        Map.entry("EventSourceArn", getAtt(stack.getStream("payments-raw"), "Arn")),
                        Map.entry("FunctionName", ref(validate.getAlias())),
                        Map.entry("BatchSize", 500),
                        Map.entry("MaximumBatchingWindowInSeconds", 1),
                        Map.entry("ParallelizationFactor", 1),
                        Map.entry("StartingPosition", "TRIM_HORIZON"),
                        Map.entry("BisectBatchOnFunctionError", true),
                        Map.entry("MaximumRetryAttempts", 3),
                        Map.entry("MaximumRecordAgeInSeconds", 3600),
                        Map.entry("FunctionResponseTypes", List.of("ReportBatchItemFailures")),
                        Map.entry(
                                "DestinationConfig",
                                Map.of(
                                        "OnFailure",
                                        Map.of("Destination", getAtt(stack.getQueue("payments-dlq"), "Arn"))))));
    }

    @Test
    void functionRunsTheStageHandlerOnJava21WithAnEncryptedLogGroup() {
        LambdaStage validate = stack.getLambdaStage("validate");
        template.hasResourceProperties(
                "AWS::Lambda::Function",
                Match.objectLike(Map.of(
                        "Runtime", "java21",
                        "Handler", "dev.sluice.lambda.KinesisStageHandler::handleRequest",
                        "LoggingConfig", Map.of("LogGroup", ref(validate.getLogGroup())))));
        template.hasResourceProperties(
                "AWS::Logs::LogGroup",
                Map.of(
                        "LogGroupName",
                        "/sluice/payments/validate",
                        "KmsKeyId",
                        getAtt(stack.getKey(PipelineKeys.Use.LOGS), "Arn"),
                        "RetentionInDays",
                        30));
    }

    @Test
    void functionHasTheStagesMemoryTimeoutAndReservedConcurrencyAndC1OnlyJvmFlags() {
        LambdaStage validate = stack.getLambdaStage("validate");
        assertThat(definition.stage("validate").function())
                .isEqualTo(new dev.sluice.core.definition.FunctionDefinition(2048, 60, 4, 24));
        template.hasResourceProperties(
                "AWS::Lambda::Function",
                Match.objectLike(Map.of(
                        "Handler", "dev.sluice.lambda.KinesisStageHandler::handleRequest",
                        "MemorySize", 2048,
                        "Timeout", 60,
                        "ReservedConcurrentExecutions", 4)));
        assertThat(TemplateQueries.environment(template, validate.getFunction()))
                .containsEntry("JAVA_TOOL_OPTIONS", "-XX:+TieredCompilation -XX:TieredStopAtLevel=1");
    }

    @Test
    void everyTableHasDeletionProtection() {
        Map<String, Map<String, Object>> tables = template.findResources("AWS::DynamoDB::Table");
        // payments-by-id, spend-per-currency-hourly (aggregate) and the lake ledger
        assertThat(tables).hasSize(3);
        assertThat(tables.values())
                .allSatisfy(table -> assertThat(((Map<?, ?>) table.get("Properties")).get("DeletionProtectionEnabled"))
                        .isEqualTo(true));
    }

    @Test
    void lakeKeepsOverwrittenOrDeletedObjectsAsNoncurrentVersionsForAWeek() {
        assertThat(PipelineStack.LAKE_NONCURRENT_VERSION_DAYS).isEqualTo(7);
        template.hasResourceProperties(
                "AWS::S3::Bucket",
                Match.objectLike(Map.of(
                        "VersioningConfiguration",
                        Map.of("Status", "Enabled"),
                        "LifecycleConfiguration",
                        Map.of(
                                "Rules",
                                Match.arrayWith(List.of(Match.objectLike(Map.of(
                                        "Prefix",
                                        "payments/",
                                        "ExpirationInDays",
                                        365,
                                        "NoncurrentVersionExpiration",
                                        Map.of("NoncurrentDays", 7),
                                        "Status",
                                        "Enabled"))))))));
    }

    @Test
    void functionEnvironmentHoldsResourceNamesOnly() {
        LambdaStage validate = stack.getLambdaStage("validate");
        Map<String, Object> environment = TemplateQueries.environment(template, validate.getFunction());
        assertThat(environment)
                .containsOnlyKeys(
                        "SLUICE_PIPELINE",
                        "SLUICE_STAGE",
                        "SLUICE_TABLE_PAYMENTS_BY_ID",
                        "SLUICE_TABLE_SPEND_PER_CURRENCY_HOURLY",
                        "SLUICE_LAKE_BUCKET",
                        "SLUICE_LEDGER_TABLE",
                        "SLUICE_QUEUE_URL_PAYMENTS_DLQ",
                        "SLUICE_SECRET_ID_TOKENIZATION_KEY",
                        "JAVA_TOOL_OPTIONS")
                .containsEntry("SLUICE_PIPELINE", "payments")
                .containsEntry("SLUICE_STAGE", "validate")
                .containsEntry("SLUICE_TABLE_PAYMENTS_BY_ID", ref(stack.getTable("payments-by-id")))
                .containsEntry(
                        "SLUICE_TABLE_SPEND_PER_CURRENCY_HOURLY", ref(stack.getTable("spend-per-currency-hourly")))
                .containsEntry("SLUICE_LAKE_BUCKET", ref(stack.getLakeBucket().orElseThrow()))
                .containsEntry("SLUICE_LEDGER_TABLE", ref(stack.getLedgerTable().orElseThrow()))
                .containsEntry("SLUICE_QUEUE_URL_PAYMENTS_DLQ", ref(stack.getQueue("payments-dlq")))
                // Ref of a secret is its ARN: the function reads the value from Secrets Manager
                .containsEntry("SLUICE_SECRET_ID_TOKENIZATION_KEY", ref(stack.getSecret("tokenization-key")));
    }

    @Test
    void noFunctionEnvironmentHoldsSecretLookingValues() {
        Map<String, Map<String, Object>> functions = template.findResources("AWS::Lambda::Function");
        assertThat(functions).isNotEmpty();
        List<String> findings = new ArrayList<>();
        functions
                .keySet()
                .forEach(id -> SecretLookingValues.in(
                                TemplateQueries.environment(template, id), TemplateQueries.secretLogicalIds(template))
                        .forEach(f -> findings.add(id + " " + f)));
        assertThat(findings).isEmpty();
    }

    @Test
    void tokenizationKeyIsGeneratedAtDeploymentAndEncryptedWithThePipelineKey() {
        Map<String, Object> secret = template.findResources("AWS::SecretsManager::Secret")
                .get(TestApps.logicalId(stack.getSecret("tokenization-key")));
        assertThat(secret).containsEntry("DeletionPolicy", "Retain");
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) secret.get("Properties");
        assertThat(properties)
                .containsEntry("KmsKeyId", getAtt(stack.getKey(PipelineKeys.Use.SECRETS), "Arn"))
                .doesNotContainKeys("SecretString", "SecretStringValue");
        @SuppressWarnings("unchecked")
        Map<String, Object> generator = (Map<String, Object>) properties.get("GenerateSecretString");
        assertThat(generator).containsEntry("ExcludePunctuation", true);
        assertThat(((Number) generator.get("PasswordLength")).intValue()).isGreaterThanOrEqualTo(32);
    }

    @Test
    void templateHoldsNoSecretValue() {
        Map<String, Object> json = template.toJSON();
        assertThat(TemplateQueries.keys(json)).doesNotContain("SecretString", "SecretStringValue", "SecretBinary");
        assertThat(TemplateQueries.strings(json))
                .noneMatch(
                        text -> text.contains("{{resolve:secretsmanager:") || text.contains("{{resolve:ssm-secure:"));
    }

    @Test
    void onlyTheStageFunctionMayReadTheTokenizationKeyAndOnlyThatSecret() {
        LambdaStage validate = stack.getLambdaStage("validate");
        List<Map<String, Object>> all = TemplateQueries.statements(template);
        List<Map<String, Object>> reading = TemplateQueries.allowing(all, "secretsmanager:GetSecretValue");
        assertThat(reading).hasSize(1);
        assertThat(TemplateQueries.resources(reading.get(0))).containsExactly(ref(stack.getSecret("tokenization-key")));
        assertThat(TemplateQueries.statementsOf(template, validate.getFunction().getRole()))
                .contains(reading.get(0));
        // nothing else in any identity policy touches Secrets Manager
        assertThat(all)
                .filteredOn(statement -> TemplateQueries.actions(statement).stream()
                        .anyMatch(action -> action.toString().startsWith("secretsmanager:")))
                .allSatisfy(statement -> assertThat(TemplateQueries.resources(statement))
                        .containsExactly(ref(stack.getSecret("tokenization-key"))));
    }

    @Test
    void tableIsKeyedByPkOnDemandWithTheCmkAndPointInTimeRecovery() {
        template.hasResourceProperties(
                "AWS::DynamoDB::Table",
                Map.of(
                        "KeySchema",
                        List.of(Map.of("AttributeName", "pk", "KeyType", "HASH")),
                        "AttributeDefinitions",
                        List.of(Map.of("AttributeName", "pk", "AttributeType", "S")),
                        "BillingMode",
                        "PAY_PER_REQUEST",
                        "SSESpecification",
                        Map.of(
                                "SSEEnabled",
                                true,
                                "SSEType",
                                "KMS",
                                "KMSMasterKeyId",
                                getAtt(stack.getKey(PipelineKeys.Use.TABLES), "Arn")),
                        "PointInTimeRecoverySpecification",
                        Map.of("PointInTimeRecoveryEnabled", true)));
    }

    @Test
    void lakeLedgerIsKeyedByPkOnDemandWithTheCmkAndPointInTimeRecovery() {
        Map<String, Object> ledger = template.findResources("AWS::DynamoDB::Table")
                .get(TestApps.logicalId(stack.getLedgerTable().orElseThrow()));
        assertThat(ledger).containsEntry("DeletionPolicy", "Retain");
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) ledger.get("Properties");
        assertThat(properties)
                .containsEntry("KeySchema", List.of(Map.of("AttributeName", "pk", "KeyType", "HASH")))
                .containsEntry("AttributeDefinitions", List.of(Map.of("AttributeName", "pk", "AttributeType", "S")))
                .containsEntry("BillingMode", "PAY_PER_REQUEST")
                .containsEntry(
                        "SSESpecification",
                        Map.of(
                                "SSEEnabled",
                                true,
                                "SSEType",
                                "KMS",
                                "KMSMasterKeyId",
                                getAtt(stack.getKey(PipelineKeys.Use.TABLES), "Arn")))
                .containsEntry("PointInTimeRecoverySpecification", Map.of("PointInTimeRecoveryEnabled", true))
                // items expire (the sink sets the attribute to its write time + the stream's retention + a day)
                .containsEntry(
                        "TimeToLiveSpecification",
                        Map.of("AttributeName", LakeDefinition.LEDGER_EXPIRES_AT, "Enabled", true));
        // the serving tables keep their items
        for (String table : List.of("payments-by-id", "spend-per-currency-hourly")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> serving = (Map<String, Object>) template.findResources("AWS::DynamoDB::Table")
                    .get(TestApps.logicalId(stack.getTable(table)))
                    .get("Properties");
            assertThat(serving).as(table).doesNotContainKey("TimeToLiveSpecification");
        }
    }

    @Test
    void lakeWritingFunctionMayOnlyGetAndUpdateLedgerItems() {
        LambdaStage validate = stack.getLambdaStage("validate");
        Object ledger = getAtt(stack.getLedgerTable().orElseThrow(), "Arn");
        List<Map<String, Object>> onLedger = TemplateQueries.statements(template).stream()
                .filter(statement -> TemplateQueries.resources(statement).contains(ledger))
                .toList();
        assertThat(onLedger).singleElement().satisfies(statement -> {
            assertThat(TemplateQueries.actions(statement))
                    .containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:UpdateItem");
            assertThat(TemplateQueries.statementsOf(
                            template, validate.getFunction().getRole()))
                    .contains(statement);
        });
    }

    @Test
    void queueIsEncryptedWithTheCmkAndKeepsMessagesForTheDeclaredDays() {
        assertThat(definition.queues().get("payments-dlq").retentionDays()).isEqualTo(14);
        template.hasResourceProperties(
                "AWS::SQS::Queue",
                Map.of(
                        "KmsMasterKeyId",
                        getAtt(stack.getKey(PipelineKeys.Use.DEAD_LETTERS), "Arn"),
                        "MessageRetentionPeriod",
                        14 * 24 * 3600));
    }

    @Test
    void lakeBucketIsPrivateVersionedAndKmsEncryptedWithABucketKey() {
        template.hasResourceProperties(
                "AWS::S3::Bucket",
                Match.objectLike(Map.of(
                        "BucketEncryption",
                        Map.of(
                                "ServerSideEncryptionConfiguration",
                                List.of(Map.of(
                                        "BucketKeyEnabled",
                                        true,
                                        "ServerSideEncryptionByDefault",
                                        Map.of(
                                                "SSEAlgorithm",
                                                "aws:kms",
                                                "KMSMasterKeyID",
                                                getAtt(stack.getKey(PipelineKeys.Use.LAKE), "Arn"))))),
                        "PublicAccessBlockConfiguration",
                        Map.of(
                                "BlockPublicAcls", true,
                                "BlockPublicPolicy", true,
                                "IgnorePublicAcls", true,
                                "RestrictPublicBuckets", true),
                        "VersioningConfiguration",
                        Map.of("Status", "Enabled"))));
    }

    @Test
    void lakePrefixExpiresAfterItsRetentionDays() {
        template.hasResourceProperties(
                "AWS::S3::Bucket",
                Match.objectLike(Map.of(
                        "LifecycleConfiguration",
                        Map.of(
                                "Rules",
                                Match.arrayWith(List.of(Match.objectLike(Map.of(
                                        "Prefix", "payments/",
                                        "ExpirationInDays", 365,
                                        "Status", "Enabled"))))))));
    }

    @Test
    void lakeBucketDeniesRequestsWithoutTls() {
        template.hasResourceProperties(
                "AWS::S3::BucketPolicy",
                Map.of(
                        "Bucket",
                        ref(stack.getLakeBucket().orElseThrow()),
                        "PolicyDocument",
                        Match.objectLike(Map.of(
                                "Statement",
                                Match.arrayWith(List.of(Match.objectLike(Map.of(
                                        "Effect",
                                        "Deny",
                                        "Principal",
                                        Map.of("AWS", "*"),
                                        "Action",
                                        "s3:*",
                                        "Condition",
                                        Map.of("Bool", Map.of("aws:SecureTransport", "false"))))))))));
    }

    @Test
    void identityPoliciesNameNoWildcardResource() {
        List<Object> resources = new ArrayList<>();
        TemplateQueries.statements(template)
                .forEach(statement -> resources.addAll(TemplateQueries.resources(statement)));
        assertThat(resources).isNotEmpty().doesNotContain("*");
    }

    @Test
    void functionMayReadAndPutLakeObjectsButNotDeleteThem() {
        List<Object> actions = new ArrayList<>();
        TemplateQueries.statements(template).forEach(statement -> actions.addAll(TemplateQueries.actions(statement)));
        assertThat(actions)
                .contains("s3:PutObject", "s3:GetObject", "dynamodb:PutItem", "sqs:SendMessage", "kinesis:GetRecords")
                .noneMatch(action -> action.toString().startsWith("s3:Delete"))
                .noneMatch(action -> action.toString().equals("dynamodb:Scan"));
    }

    @Test
    void stageFunctionMayGetAndUpdateAggregateItemsButNotPutDeleteOrScanThem() {
        Object aggregates = getAtt(stack.getTable("spend-per-currency-hourly"), "Arn");
        List<Map<String, Object>> onAggregates =
                TemplateQueries.statementsOf(
                                template,
                                stack.getLambdaStage("validate").getFunction().getRole())
                        .stream()
                        .filter(statement ->
                                TemplateQueries.resources(statement).contains(aggregates))
                        .toList();

        assertThat(onAggregates)
                .singleElement()
                .satisfies(statement -> assertThat(TemplateQueries.actions(statement))
                        .containsExactlyInAnyOrder("dynamodb:GetItem", "dynamodb:UpdateItem"));
    }
}
