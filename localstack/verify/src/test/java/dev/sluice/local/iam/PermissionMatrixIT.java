package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.StageAccess;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.KclAccess;
import dev.sluice.core.definition.Classification;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.iam.AccessRequest;
import dev.sluice.emulators.iam.AwsService;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.emulators.iam.KeyUse;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.provision.PipelineResources;
import dev.sluice.local.template.CloudFormationTemplate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The permission matrix of every pipeline in {@code pipelines/}, computed by the real policy
 * evaluator over the synthesized template — identity, key and resource policies, the implied KMS
 * calls included — with each expected cell derived from the definition: its {@code access:} block,
 * each stream's classification and each stage's needs ({@link StageAccess}, plus what its consumer
 * reads: the event-source mapping or {@link KclAccess}), never from a snapshot of today's output.
 * Then mutations of the template are tried; each must either change a cell (and so fail the build)
 * or be refused where the resource side says it must be.
 *
 * <p>Decisions the expected cells encode (docs/operations.md "Access", docs/local-iam.md):
 *
 * <ul>
 *   <li><b>admin</b> is the admin role's session once assumed: its trust requires MFA (or a session
 *       tag), which the local stack does not evaluate (no {@code sts:AssumeRole}); its identity
 *       policy carries no MFA condition, so its cells are those of its identity policy with the
 *       resource and key policies, under {@code aws:MultiFactorAuthPresent=false}. Admin reads and
 *       writes every stream (restricted ones too), table, lake prefix and queue; it may not read the
 *       tokenization secret. It sees what the viewer sees (this pipeline's dashboard and alarms,
 *       metrics) and reads the stages' log groups.
 *   <li><b>keys</b> are usable only through their service ({@code kms:ViaService}): used directly,
 *       every key is denied to every persona and stage role, admin included. The logs key is used by
 *       the Logs service principal only, so nobody's session may decrypt with it even via Logs.
 *   <li><b>logs</b> are read by admin only, and only the stages' log groups; stages only write their
 *       own group.
 * </ul>
 */
@ExtendWith(LocalAwsExtension.class)
class PermissionMatrixIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final Set<String> READERS = Set.of("analyst", "pipeline-developer");
    private static final List<String> PERSONAS =
            List.of("admin", "analyst", "pipeline-developer", "source-operator", "viewer");
    private static final String REGION = "us-east-1";
    private static final String ACCOUNT = "000000000000";
    private static final String OTHER_DASHBOARD = "arn:aws:cloudwatch::" + ACCOUNT + ":dashboard/sluice-other-pipeline";
    private static final String OTHER_ALARM =
            "arn:aws:cloudwatch:" + REGION + ":" + ACCOUNT + ":alarm:sluice-other-pipeline-FailedBatches";
    private static final String EXPLICIT_RESOURCE_DENY = "explicit deny in a resource-based policy";

    static Stream<String> pipelines() {
        return Stream.of("payments", "clickstream");
    }

    private static PipelineDefinition load(String name) {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/" + name + ".yaml"));
    }

    /**
     * One cell: who, on what (a group of the printed table, a resource, an action), what the
     * definition says, what the evaluator says.
     */
    record Cell(
            String principal,
            String group,
            String resource,
            String action,
            boolean expected,
            boolean actual,
            String reason) {
        boolean mismatch() {
            return expected != actual;
        }

        String column() {
            return resource + " " + action;
        }

        @Override
        public String toString() {
            return String.format(
                    "%-22s %-44s %-34s expected %-5s got %s%s",
                    principal,
                    resource,
                    action,
                    expected ? "allow" : "deny",
                    actual ? "allow" : "deny",
                    actual ? "" : " (" + reason + ")");
        }
    }

    @ParameterizedTest
    @MethodSource("pipelines")
    void everyCellIsWhatTheDefinitionSays(String name, LocalAws aws, ResourceNames names) throws IOException {
        PipelineDefinition definition = load(name);
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, definition, names, ROOT)) {
            CloudFormationTemplate template = CloudFormationTemplate.synthesize(definition);
            List<Cell> cells = matrix(pipeline, definition, template);
            cells.forEach(cell -> System.out.println(name + " " + cell));
            String table = table(name, cells);
            System.out.println(table);
            Path out = Path.of("target", "permission-matrix-" + name + ".md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, table);
            assertThat(cells).hasSizeGreaterThan(100);
            assertThat(cells.stream().filter(Cell::mismatch).map(Cell::toString))
                    .as("cells where the template disagrees with the definition")
                    .isEmpty();

            List<String> outcomes = mutations(pipeline, definition, template);
            outcomes.forEach(o -> System.out.println(name + " mutation " + o));
            assertThat(outcomes.stream().filter(o -> o.startsWith("NOT CAUGHT")))
                    .as("mutations the matrix did not catch")
                    .isEmpty();
            pipeline.deployAccess(template);
        }
    }

    // ---- mutations -----------------------------------------------------------------------------

    /**
     * Each mutation of the template, deployed in turn, with its outcome: {@code caught: <first
     * changed cell>}, {@code refused: <why>} where the resource side must refuse it, or {@code NOT
     * CAUGHT: ...}.
     */
    private List<String> mutations(
            LocalPipeline pipeline, PipelineDefinition definition, CloudFormationTemplate template) {
        String firstStage = definition.stages().keySet().iterator().next();
        StageDefinition first = definition.stages().get(firstStage);
        AccessModel model = pipeline.accessModel().orElseThrow();
        String stageRole = pipeline.stagePrincipal(firstStage).orElseThrow().logicalId();
        String analyst = model.personas().get("analyst").logicalId();
        String viewer = model.personas().get("viewer").logicalId();
        String admin = model.personas().get("admin").logicalId();
        String someTable = definition.tables().keySet().iterator().next();
        List<String> outcomes = new ArrayList<>();

        outcomes.add(changesACell(
                "analyst granted PutItem on " + someTable,
                pipeline,
                definition,
                Grants.grant(template, analyst, "dynamodb:PutItem", logicalId(template, "table", someTable), null)));
        if (first.deduplicate() != null) {
            outcomes.add(changesACell(
                    "dedup GetItem removed from " + firstStage,
                    pipeline,
                    definition,
                    Grants.revoke(
                                    template,
                                    stageRole,
                                    "dynamodb:GetItem",
                                    logicalId(template, "table", first.deduplicate()),
                                    null)
                            .template()));
        }
        outcomes.add(changesACell(
                "DLQ SendMessage removed from " + firstStage,
                pipeline,
                definition,
                Grants.revoke(
                                template,
                                stageRole,
                                "sqs:SendMessage",
                                logicalId(template, "queue", first.failure().deadLetterQueue()),
                                null)
                        .template()));

        // the raw stream: the stream the source operator writes (restricted in both pipelines)
        String raw = definition.access().getOrDefault("source-operator", List.of()).stream()
                .filter(definition.streams()::containsKey)
                .findFirst()
                .orElseThrow();
        boolean restricted = definition.streams().get(raw).classification() == Classification.RESTRICTED;
        String rawStream = logicalId(template, "stream", raw);
        String streamsKey = keyOf(template, rawStream, "StreamEncryption", "KeyId");
        CloudFormationTemplate keyGrant = allowInKeyPolicy(template, streamsKey, analyst, "kms:Decrypt");
        AccessRequest readRaw =
                AccessRequest.of("kinesis:GetRecords", streamArn(pipeline.resources(), raw), KeyUse.DECRYPT);
        // a key-policy-only grant: the analyst has no kinesis:GetRecords on the stream
        outcomes.add(
                restricted
                        ? refused(
                                "analyst granted the raw stream " + raw + " in the streams key policy",
                                pipeline,
                                definition,
                                keyGrant,
                                "analyst",
                                AwsService.KINESIS,
                                readRaw,
                                null)
                        : changesACell(
                                "analyst granted " + raw + " in the key policy", pipeline, definition, keyGrant));
        // the same with kinesis:GetRecords in its identity policy: the restricted stream's resource policy denies
        CloudFormationTemplate fullGrant = Grants.grant(keyGrant, analyst, "kinesis:GetRecords", rawStream, null);
        outcomes.add(
                restricted
                        ? refused(
                                "analyst granted the raw stream " + raw + " in the streams key policy and its identity"
                                        + " policy",
                                pipeline,
                                definition,
                                fullGrant,
                                "analyst",
                                AwsService.KINESIS,
                                readRaw,
                                EXPLICIT_RESOURCE_DENY)
                        : changesACell(
                                "analyst granted " + raw + " (key and identity policy)",
                                pipeline,
                                definition,
                                fullGrant));

        if (restricted) {
            // the same without the stream's resource policy: the streams key's deny, conditioned on
            // the encryption context Kinesis sends (the stream's ARN), must refuse on its own
            CloudFormationTemplate keyOnly = without(fullGrant, "AWS::Kinesis::ResourcePolicy", rawStream);
            outcomes.add(refused(
                    "analyst granted the raw stream " + raw + " (key and identity policy) and the stream's resource"
                            + " policy removed",
                    pipeline,
                    definition,
                    keyOnly,
                    "analyst",
                    AwsService.KINESIS,
                    readRaw,
                    EXPLICIT_RESOURCE_DENY));
        }

        outcomes.add(changesACell(
                "viewer's GetDashboard widened to *",
                pipeline,
                definition,
                allowOnAnything(template, viewer, "cloudwatch:GetDashboard")));

        pipeline.resources()
                .secrets()
                .forEach((secret, arn) -> outcomes.add(refused(
                        "admin granted GetSecretValue on " + secret,
                        pipeline,
                        definition,
                        grantOnRef(
                                template,
                                admin,
                                "secretsmanager:GetSecretValue",
                                logicalId(template, "secret", secret)),
                        "admin",
                        AwsService.SECRETS_MANAGER,
                        AccessRequest.of("secretsmanager:GetSecretValue", arn, KeyUse.DECRYPT),
                        EXPLICIT_RESOURCE_DENY)));
        return outcomes;
    }

    /** Deploys a mutation: some cell must now disagree with the definition. */
    private String changesACell(
            String mutation, LocalPipeline pipeline, PipelineDefinition definition, CloudFormationTemplate mutated) {
        pipeline.deployAccess(mutated);
        Optional<String> changed = matrix(pipeline, definition, mutated).stream()
                .filter(Cell::mismatch)
                .map(Cell::toString)
                .findFirst();
        return changed.map(c -> "caught: " + mutation + ": " + c)
                .orElse("NOT CAUGHT: " + mutation + ": every cell is still what the definition says");
    }

    /**
     * Deploys a mutation the resource side (or the lack of the other half of the grant) must refuse:
     * no cell may change, and the request it aims at must be denied for the stated reason.
     */
    private String refused(
            String mutation,
            LocalPipeline pipeline,
            PipelineDefinition definition,
            CloudFormationTemplate mutated,
            String persona,
            AwsService service,
            AccessRequest request,
            String reason) {
        pipeline.deployAccess(mutated);
        String changed = matrix(pipeline, definition, mutated).stream()
                .filter(Cell::mismatch)
                .map(Cell::toString)
                .findFirst()
                .map(c -> " (changed cell: " + c.replaceAll("\\s+", " ") + ")")
                .orElse(" (no cell changed)");
        LocalIam iam = pipeline.iam().orElseThrow();
        AccessModel.Principal who =
                pipeline.accessModel().orElseThrow().personas().get(persona);
        Decision decision = iam.decide(who, service, request);
        if (decision instanceof Decision.Denied denied
                && (reason == null || denied.reason().contains(reason))) {
            return "refused: " + mutation + ": " + denied.message() + changed;
        }
        return "NOT CAUGHT: " + mutation + ": " + request.action() + " as " + persona + " was "
                + (decision instanceof Decision.Denied d ? "denied because " + d.reason() : "allowed")
                + " (expected denied: " + reason + ")";
    }

    private static CloudFormationTemplate withResource(
            CloudFormationTemplate template, String logicalId, CloudFormationTemplate.Resource resource) {
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>(template.resources());
        resources.put(logicalId, resource);
        return new CloudFormationTemplate(template.stackName(), resources);
    }

    /** The template without its resources of {@code type} that name {@code logicalId} (e.g. a stream's policy). */
    private static CloudFormationTemplate without(CloudFormationTemplate template, String type, String logicalId) {
        Map<String, CloudFormationTemplate.Resource> resources = new LinkedHashMap<>();
        template.resources().forEach((id, resource) -> {
            boolean names = resource.properties().toString().contains("\"" + logicalId + "\"");
            if (!(resource.type().equals(type) && names)) {
                resources.put(id, resource);
            }
        });
        assertThat(resources)
                .as("%s naming %s", type, logicalId)
                .hasSizeLessThan(template.resources().size());
        return new CloudFormationTemplate(template.stackName(), resources);
    }

    /** One more statement in a key's policy: {@code action} allowed to a role (by its ARN) on the key. */
    private static CloudFormationTemplate allowInKeyPolicy(
            CloudFormationTemplate template, String keyLogicalId, String roleLogicalId, String action) {
        CloudFormationTemplate.Resource key = template.resources().get(keyLogicalId);
        ObjectNode properties = key.properties().deepCopy();
        ObjectNode statement = ((ArrayNode) properties.path("KeyPolicy").path("Statement")).addObject();
        statement.put("Sid", "MutationGrant");
        statement.put("Effect", "Allow");
        statement
                .putObject("Principal")
                .putObject("AWS")
                .putArray("Fn::GetAtt")
                .add(roleLogicalId)
                .add("Arn");
        statement.put("Action", action);
        statement.put("Resource", "*");
        return withResource(
                template,
                keyLogicalId,
                new CloudFormationTemplate.Resource(keyLogicalId, key.type(), properties, key.metadata()));
    }

    /** An inline policy on a role allowing {@code action} on {@code *}. */
    private static CloudFormationTemplate allowOnAnything(
            CloudFormationTemplate template, String roleLogicalId, String action) {
        return Grants.grant(template, roleLogicalId, action, JsonNodeFactory.instance.textNode("*"));
    }

    /** An inline policy on a role allowing {@code action} on the resource's {@code Ref} (a secret's ARN). */
    private static CloudFormationTemplate grantOnRef(
            CloudFormationTemplate template, String roleLogicalId, String action, String resourceLogicalId) {
        ObjectNode ref = JsonNodeFactory.instance.objectNode().put("Ref", resourceLogicalId);
        return Grants.grant(template, roleLogicalId, action, ref);
    }

    private static String keyOf(CloudFormationTemplate template, String logicalId, String property, String field) {
        com.fasterxml.jackson.databind.JsonNode key =
                template.resources().get(logicalId).property(property).path(field);
        return key.path("Fn::GetAtt").path(0).asText(key.path("Ref").asText());
    }

    private static String logicalId(CloudFormationTemplate template, String kind, String name) {
        return template.resources().values().stream()
                .filter(r ->
                        r.kind().orElse("").equals(kind) && r.name().orElse("").equals(name))
                .map(CloudFormationTemplate.Resource::logicalId)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the template"));
    }

    // ---- the matrix ----------------------------------------------------------------------------

    /** Who is asked what: a principal with the predicate saying what the definition lets it do. */
    private record Row(String label, AccessModel.Principal principal, Expected expected) {}

    /** What the definition lets a principal do: (group, resource name, action) → allowed. */
    @FunctionalInterface
    private interface Expected {
        boolean allows(String group, String name, String action);
    }

    private List<Cell> matrix(LocalPipeline pipeline, PipelineDefinition definition, CloudFormationTemplate template) {
        LocalIam iam = pipeline.iam().orElseThrow(() -> new AssertionError("IAM is not enforced"));
        AccessModel model = pipeline.accessModel().orElseThrow();
        PipelineResources r = pipeline.resources();
        Map<String, List<String>> access = definition.access();

        List<Row> rows = new ArrayList<>();
        for (String persona : PERSONAS) {
            AccessModel.Principal who = model.personas().get(persona);
            assertThat(who).as("persona role %s", persona).isNotNull();
            List<String> listed = access.getOrDefault(persona, List.of());
            rows.add(new Row(persona, who, personaExpectation(definition, persona, listed)));
        }
        definition
                .stages()
                .forEach((stage, spec) -> rows.add(new Row(
                        "stage " + stage,
                        pipeline.stagePrincipal(stage).orElseThrow(),
                        stageExpectation(definition, pipeline, stage, spec))));

        // the columns: (group, resource name, action, service, ARN, key use)
        record Column(String group, String name, String action, AwsService service, AccessRequest request) {}
        List<Column> columns = new ArrayList<>();
        definition.streams().keySet().forEach(stream -> {
            String arn = streamArn(r, stream);
            columns.add(new Column(
                    "streams",
                    stream,
                    "GetRecords",
                    AwsService.KINESIS,
                    AccessRequest.of("kinesis:GetRecords", arn, KeyUse.DECRYPT)));
            columns.add(new Column(
                    "streams",
                    stream,
                    "PutRecords",
                    AwsService.KINESIS,
                    AccessRequest.of("kinesis:PutRecords", arn, KeyUse.ENCRYPT)));
        });
        definition.tables().keySet().forEach(table -> {
            String arn = tableArn(r, table);
            for (String action : List.of("GetItem", "Query", "Scan")) {
                columns.add(new Column(
                        "tables",
                        table,
                        action,
                        AwsService.DYNAMODB,
                        AccessRequest.of("dynamodb:" + action, arn, KeyUse.DECRYPT)));
            }
            columns.add(new Column(
                    "tables",
                    table,
                    "PutItem",
                    AwsService.DYNAMODB,
                    AccessRequest.of("dynamodb:PutItem", arn, KeyUse.DECRYPT)));
        });
        definition.lakes().forEach((lake, spec) -> {
            String object = "arn:aws:s3:::" + r.bucket() + "/" + objectKey(spec.prefix());
            columns.add(new Column(
                    "lake",
                    lake,
                    "GetObject",
                    AwsService.S3,
                    AccessRequest.of("s3:GetObject", object, KeyUse.DECRYPT)));
            columns.add(new Column(
                    "lake",
                    lake,
                    "PutObject",
                    AwsService.S3,
                    AccessRequest.of("s3:PutObject", object, KeyUse.ENCRYPT)));
        });
        definition.queues().keySet().forEach(queue -> {
            String arn = queueArn(r, queue);
            columns.add(new Column(
                    "queues",
                    queue,
                    "ReceiveMessage",
                    AwsService.SQS,
                    AccessRequest.of("sqs:ReceiveMessage", arn, KeyUse.DECRYPT)));
            columns.add(new Column(
                    "queues",
                    queue,
                    "SendMessage",
                    AwsService.SQS,
                    AccessRequest.of("sqs:SendMessage", arn, KeyUse.ENCRYPT)));
        });
        r.secrets()
                .forEach((secret, arn) -> columns.add(new Column(
                        "secrets",
                        secret,
                        "GetSecretValue",
                        AwsService.SECRETS_MANAGER,
                        AccessRequest.of("secretsmanager:GetSecretValue", arn, KeyUse.DECRYPT))));
        // each customer-managed key, found through a resource it encrypts
        Map<String, String> keys = new LinkedHashMap<>(); // service -> key ARN
        definition.streams().keySet().stream()
                .findFirst()
                .ifPresent(s -> model.encryptionKey(streamArn(r, s)).ifPresent(k -> keys.put("kinesis", k)));
        definition.tables().keySet().stream()
                .findFirst()
                .ifPresent(t -> model.encryptionKey(tableArn(r, t)).ifPresent(k -> keys.put("dynamodb", k)));
        model.encryptionKey("arn:aws:s3:::" + r.bucket()).ifPresent(k -> keys.put("s3", k));
        definition.queues().keySet().stream()
                .findFirst()
                .ifPresent(q -> model.encryptionKey(queueArn(r, q)).ifPresent(k -> keys.put("sqs", k)));
        r.secrets().values().stream()
                .findFirst()
                .ifPresent(s -> model.encryptionKey(s).ifPresent(k -> keys.put("secretsmanager", k)));
        List<String> logGroups = logicalIdsOf(template, "AWS::Logs::LogGroup").stream()
                .map(id -> model.arnOf(id).orElseThrow())
                .toList();
        logGroups.stream().findFirst().flatMap(model::encryptionKey).ifPresent(k -> keys.put("logs", k));
        assertThat(keys.keySet())
                .as("the customer-managed keys of %s", definition.pipeline())
                .contains("kinesis", "dynamodb", "sqs");
        keys.forEach((service, key) -> {
            Map<String, List<String>> via = Map.of(
                    "kms:ViaService", List.of(service + "." + REGION + ".amazonaws.com"),
                    "kms:CallerAccount", List.of(ACCOUNT));
            columns.add(new Column(
                    "keys",
                    service + " key",
                    "Decrypt via " + service,
                    AwsService.KMS,
                    new AccessRequest("kms:Decrypt", key, via, KeyUse.NONE)));
            columns.add(new Column(
                    "keys",
                    service + " key",
                    "Decrypt directly",
                    AwsService.KMS,
                    AccessRequest.of("kms:Decrypt", key)));
        });
        // metrics, dashboards, alarms, logs
        columns.add(new Column(
                "observability",
                "metrics",
                "GetMetricData",
                AwsService.CLOUDWATCH,
                AccessRequest.of("cloudwatch:GetMetricData", "*")));
        String dashboard = logicalIdsOf(template, "AWS::CloudWatch::Dashboard").stream()
                .map(id -> model.arnOf(id).orElseThrow())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no dashboard in the template"));
        columns.add(new Column(
                "observability",
                "this dashboard",
                "GetDashboard",
                AwsService.CLOUDWATCH,
                AccessRequest.of("cloudwatch:GetDashboard", dashboard)));
        columns.add(new Column(
                "observability",
                "other dashboard",
                "GetDashboard",
                AwsService.CLOUDWATCH,
                AccessRequest.of("cloudwatch:GetDashboard", OTHER_DASHBOARD)));
        List<String> alarms = logicalIdsOf(template, "AWS::CloudWatch::Alarm");
        assertThat(alarms).as("alarms of %s", definition.pipeline()).isNotEmpty();
        alarms.forEach(id -> columns.add(new Column(
                "observability",
                "this pipeline's alarms",
                "DescribeAlarms",
                AwsService.CLOUDWATCH,
                AccessRequest.of("cloudwatch:DescribeAlarms", model.arnOf(id).orElseThrow()))));
        columns.add(new Column(
                "observability",
                "other alarm",
                "DescribeAlarms",
                AwsService.CLOUDWATCH,
                AccessRequest.of("cloudwatch:DescribeAlarms", OTHER_ALARM)));
        assertThat(logGroups).as("log groups of %s", definition.pipeline()).isNotEmpty();
        logGroups.forEach(group -> {
            String name = group.substring(group.indexOf(":log-group:") + ":log-group:".length())
                    .replaceFirst(":\\*$", "");
            String groupArn = group.endsWith(":*") ? group.substring(0, group.length() - 2) : group;
            columns.add(new Column(
                    "logs",
                    name,
                    "FilterLogEvents",
                    AwsService.LOGS,
                    AccessRequest.of("logs:FilterLogEvents", groupArn + ":*")));
            columns.add(new Column(
                    "logs",
                    name,
                    "GetLogEvents",
                    AwsService.LOGS,
                    AccessRequest.of("logs:GetLogEvents", groupArn + ":log-stream:local")));
        });

        List<Cell> cells = new ArrayList<>();
        for (Row row : rows) {
            for (Column column : columns) {
                Decision decision = iam.decide(row.principal(), column.service(), column.request());
                cells.add(new Cell(
                        row.label(),
                        column.group(),
                        column.name(),
                        column.action(),
                        row.expected().allows(column.group(), column.name(), column.action()),
                        decision instanceof Decision.Allowed,
                        decision instanceof Decision.Denied denied
                                ? denied.action() + ": " + denied.reason()
                                : String.valueOf(decision)));
            }
        }
        return cells;
    }

    /** What the definition lets a persona do (docs/operations.md "Access", infra-cdk Personas). */
    private static Expected personaExpectation(PipelineDefinition definition, String persona, List<String> listed) {
        boolean admin = persona.equals("admin");
        boolean reader = READERS.contains(persona);
        Predicate<String> readableStream =
                s -> listed.contains(s) && definition.streams().get(s).classification() != Classification.RESTRICTED;
        return (group, name, action) -> switch (group) {
            case "streams" ->
                action.equals("GetRecords")
                        ? admin || reader && readableStream.test(name)
                        : admin || persona.equals("source-operator") && listed.contains(name);
            case "tables" -> action.equals("PutItem") ? admin : admin || reader && listed.contains(name);
            case "lake" -> action.equals("PutObject") ? admin : admin || reader && listed.contains(name);
            case "queues" -> admin; // dead-letter queues: admin only (replays)
            case "secrets" -> false; // the stages that mask only — not admin
            case "keys" ->
                action.startsWith("Decrypt via")
                        && switch (name.replace(" key", "")) {
                            case "kinesis" ->
                                admin
                                        || reader
                                                && definition.streams().keySet().stream()
                                                        .anyMatch(readableStream);
                            case "dynamodb" ->
                                admin
                                        || reader
                                                && definition.tables().keySet().stream()
                                                        .anyMatch(listed::contains);
                            case "s3" ->
                                admin
                                        || reader
                                                && definition.lakes().keySet().stream()
                                                        .anyMatch(listed::contains);
                            case "sqs" -> admin;
                            default -> false; // secrets: maskers only; logs: the Logs service only
                        };
            case "observability" -> (persona.equals("viewer") || admin) && !name.startsWith("other");
            // admin reads the stages' log groups (not, e.g., a KCL cluster's VPC flow logs)
            case "logs" ->
                admin
                        && definition.stages().keySet().stream()
                                .anyMatch(stage -> name.equals("/sluice/" + definition.pipeline() + "/" + stage));
            default -> throw new AssertionError("no expectation for " + group);
        };
    }

    /**
     * What a stage's role may do: what its components declare ({@link StageAccess}) and what its
     * consumer does with the role (the event-source mapping's reads of its input, or {@link
     * KclAccess}); nothing on CloudWatch but {@code PutMetricData} (not a cell), nothing in logs but
     * writing its own group (not a cell).
     */
    private static Expected stageExpectation(
            PipelineDefinition definition, LocalPipeline pipeline, String stage, StageDefinition spec) {
        List<Access> needs = new ArrayList<>(StageAccess.of(definition, stage));
        if (spec.consumer() == ConsumerType.KCL) {
            needs.addAll(KclAccess.of(spec.input(), definition.pipeline() + "-" + stage));
        } else {
            needs.add(Access.stream(spec.input(), "kinesis:GetRecords", "kinesis:GetShardIterator"));
            needs.add(Access.key("kinesis", "kms:Decrypt"));
        }
        Set<String> declared = new LinkedHashSet<>();
        needs.forEach(a -> a.actions().forEach(action -> declared.add(a.target() + "|" + a.name() + "|" + action)));
        // a data cell includes the implied KMS call: the stage must also declare that use of the key
        Predicate<String> key = use -> declared.contains("KEY|" + use);
        return (group, name, action) -> switch (group) {
            case "streams" ->
                declared.contains("STREAM|" + name + "|kinesis:" + action) && key.test("kinesis|" + kmsAction(action));
            case "tables" ->
                // DynamoDB item calls, writes too, need kms:Decrypt on the table's key (as the gate maps them)
                declared.contains("TABLE|" + name + "|dynamodb:" + action) && key.test("dynamodb|kms:Decrypt");
            case "lake" -> {
                if (!key.test("s3|" + kmsAction(action))) {
                    yield false; // e.g. HeadObject only: s3:GetObject without reading (decrypting) the body
                }
                String object = objectKey(definition.lakes().get(name).prefix());
                yield needs.stream()
                        .filter(a -> a.target() == Access.Target.OBJECTS)
                        .filter(a -> a.actions().contains("s3:" + action))
                        .anyMatch(a -> a.scope().endsWith("*")
                                ? object.startsWith(
                                        a.scope().substring(0, a.scope().length() - 1))
                                : object.equals(a.scope()));
            }
            case "queues" ->
                declared.contains("QUEUE|" + name + "|sqs:" + action) && key.test("sqs|" + kmsAction(action));
            case "secrets" ->
                declared.contains("SECRET|" + name + "|secretsmanager:" + action)
                        && key.test("secretsmanager|kms:Decrypt");
            case "keys" ->
                action.startsWith("Decrypt via")
                        && !name.equals("logs key")
                        && declared.contains("KEY|" + name.replace(" key", "") + "|kms:Decrypt");
            case "observability", "logs" -> false;
            default -> throw new AssertionError("no expectation for " + group);
        };
    }

    /** The KMS call a data action implies (as the columns ask it): reads decrypt, writes generate a data key. */
    private static String kmsAction(String action) {
        return action.startsWith("Put") || action.startsWith("Send") ? "kms:GenerateDataKey" : "kms:Decrypt";
    }

    private static List<String> logicalIdsOf(CloudFormationTemplate template, String type) {
        return template.resources().values().stream()
                .filter(resource -> resource.type().equals(type))
                .map(CloudFormationTemplate.Resource::logicalId)
                .toList();
    }

    private static String streamArn(PipelineResources r, String stream) {
        return "arn:aws:kinesis:" + REGION + ":" + ACCOUNT + ":stream/"
                + r.streams().get(stream);
    }

    private static String tableArn(PipelineResources r, String table) {
        return "arn:aws:dynamodb:" + REGION + ":" + ACCOUNT + ":table/"
                + r.tables().get(table);
    }

    private static String queueArn(PipelineResources r, String queue) {
        String url = r.queueUrls().get(queue);
        return "arn:aws:sqs:" + REGION + ":" + ACCOUNT + ":" + url.substring(url.lastIndexOf('/') + 1);
    }

    /** An object of a lake prefix. */
    private static String objectKey(String prefix) {
        return (prefix.endsWith("/") ? prefix : prefix + "/") + "dt=2026-12-01/x.jsonl.gz";
    }

    // ---- the printed table ---------------------------------------------------------------------

    /**
     * The matrix as Markdown: one table per group (streams, tables, lake, queues, secrets, keys,
     * observability, logs), rows principals, columns resource × action, cells allow/deny; a cell
     * that disagrees with the definition is marked. Several cells under one column (the pipeline's
     * alarms) show allow or deny when they agree, else "mixed".
     */
    static String table(String pipeline, List<Cell> cells) {
        StringBuilder out = new StringBuilder();
        out.append("## Permission matrix: ").append(pipeline).append("\n\n");
        out.append("Computed by the policy evaluator over the synthesized template (identity, key and resource"
                + " policies; each data call with its implied KMS call via the service). Expected cells come from"
                + " the definition; a mismatch is marked `!`.\n");
        Map<String, List<Cell>> byGroup =
                cells.stream().collect(Collectors.groupingBy(Cell::group, LinkedHashMap::new, Collectors.toList()));
        byGroup.forEach((group, groupCells) -> {
            List<String> columns =
                    groupCells.stream().map(Cell::column).distinct().toList();
            List<String> principals =
                    groupCells.stream().map(Cell::principal).distinct().toList();
            out.append("\n### ").append(group).append("\n\n| principal |");
            columns.forEach(c -> out.append(' ').append(c).append(" |"));
            out.append("\n|---|");
            columns.forEach(c -> out.append("---|"));
            out.append('\n');
            for (String principal : principals) {
                out.append("| ").append(principal).append(" |");
                for (String column : columns) {
                    List<Cell> here = groupCells.stream()
                            .filter(c -> c.principal().equals(principal)
                                    && c.column().equals(column))
                            .toList();
                    boolean allAllowed = here.stream().allMatch(Cell::actual);
                    boolean noneAllowed = here.stream().noneMatch(Cell::actual);
                    String value = allAllowed ? "allow" : noneAllowed ? "deny" : "mixed";
                    boolean mismatch = here.stream().anyMatch(Cell::mismatch);
                    out.append(' ').append(value).append(mismatch ? " !" : "").append(" |");
                }
                out.append('\n');
            }
        });
        return out.toString();
    }
}
