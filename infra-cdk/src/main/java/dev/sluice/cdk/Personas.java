package dev.sluice.cdk;

import dev.sluice.core.definition.Classification;
import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.kinesis.Stream;
import software.amazon.awscdk.services.s3.Bucket;
import software.constructs.Construct;

/**
 * One IAM role per {@link Persona}, generated from the pipeline's {@code access} block, each with
 * least privilege on the pipeline's own resource ARNs:
 *
 * <ul>
 *   <li>{@code admin}: read and write every stream, table (the lake ledger included), the lake
 *       bucket and every queue (not the secrets: see docs/operations.md#access), with the use of
 *       each store's key (pinned to its service) —
 *       whatever {@code access} says (the key use is not limited to services: the constructs'
 *       {@code grant*} helpers add it unconditioned);
 *   <li>{@code pipeline-developer} and {@code analyst}: read the streams, lakes and tables listed
 *       for them — streams with {@link #STREAM_READ_ACTIONS}, lakes with {@code s3:GetObject} on
 *       {@code <bucket>/<prefix>*} and {@code s3:ListBucket} under that prefix, tables with {@link
 *       #TABLE_READ_ACTIONS} — and {@code kms:Decrypt} with the key only through the services of
 *       what they read ({@code kms:ViaService} {@code kinesis}, {@code s3}, {@code dynamodb}
 *       {@code .<region>.amazonaws.com});
 *   <li>{@code source-operator}: {@link #SOURCE_WRITE_ACTIONS} on the streams listed for it and
 *       {@code kms:GenerateDataKey} on the key only through Kinesis ({@code kms:ViaService});
 *   <li>{@code viewer}: {@link #VIEWER_DASHBOARD_ACTIONS} on this pipeline's dashboard, {@link
 *       #VIEWER_ALARM_ACTIONS} on its alarms, and {@link #VIEWER_UNSCOPED_ACTIONS}, which have no
 *       resource type, on {@code *}.
 * </ul>
 *
 * <p>Restricted data is never granted to a non-admin persona: a {@code restricted} stream is read
 * only by the stage that masks it, dead-letter queues hold raw records, secrets are never listed.
 * When {@code access} lists such a resource for a reading persona (or a resource kind the persona
 * cannot use, such as a table for {@code source-operator}), no grant is made and the skip is
 * recorded with its reason in {@link #getSkippedGrants()} and as an info annotation.
 *
 * <p>Who may assume each role comes from {@link PersonaTrust} (context {@value PersonaTrust#CONTEXT});
 * a persona without configured principals trusts the account root, with a synthesis warning. Admin
 * requires MFA or the configured session tag. Restricted data is also denied on the resource side
 * ({@link RestrictedData}).
 */
public final class Personas extends Construct {

    /** What a reading persona may do on a stream it is given. */
    public static final List<String> STREAM_READ_ACTIONS = List.of(
            "kinesis:DescribeStreamSummary",
            "kinesis:DescribeStream",
            "kinesis:ListShards",
            "kinesis:GetShardIterator",
            "kinesis:GetRecords",
            "kinesis:SubscribeToShard",
            "kinesis:DescribeStreamConsumer");

    /** What a reading persona may do on a serving table it is given. */
    public static final List<String> TABLE_READ_ACTIONS =
            List.of("dynamodb:GetItem", "dynamodb:Query", "dynamodb:Scan", "dynamodb:DescribeTable");

    /**
     * What the source operator may do on its source streams, and nothing more: put records, and list
     * the shards (the KPL and other producer libraries call ListShards to map hash keys to shards; it
     * reveals shard ids and hash-key ranges, no data).
     */
    public static final List<String> SOURCE_WRITE_ACTIONS =
            List.of("kinesis:ListShards", "kinesis:PutRecord", "kinesis:PutRecords");

    /** The viewer's action on this pipeline's dashboard (resource type {@code dashboard}). */
    public static final List<String> VIEWER_DASHBOARD_ACTIONS = List.of("cloudwatch:GetDashboard");

    /** The viewer's actions on this pipeline's alarms (resource type {@code alarm}). */
    public static final List<String> VIEWER_ALARM_ACTIONS =
            List.of("cloudwatch:DescribeAlarmHistory", "cloudwatch:DescribeAlarms");

    /**
     * The viewer's CloudWatch actions that have no resource type in the service authorization
     * reference (only {@code *} can name them): list dashboards, read and list metrics.
     */
    public static final List<String> VIEWER_UNSCOPED_ACTIONS = List.of(
            "cloudwatch:GetMetricData",
            "cloudwatch:GetMetricStatistics",
            "cloudwatch:ListDashboards",
            "cloudwatch:ListMetrics");

    /**
     * Admin's reads of this pipeline's stage log groups (browse and search; the Logs service decrypts
     * with the logs key as itself, so no KMS grant).
     */
    public static final List<String> ADMIN_LOG_ACTIONS =
            List.of("logs:DescribeLogStreams", "logs:FilterLogEvents", "logs:GetLogEvents");

    /** Why a restricted stream is not granted. */
    public static final String RESTRICTED_STREAM = "restricted stream: only the stage that masks it reads it";

    /** Why a queue is not granted. */
    public static final String DEAD_LETTER_QUEUE = "dead-letter queue: holds raw records";

    private final PipelineStack stack;
    private final PersonaTrust trust;
    private final Map<Persona, Role> roles = new EnumMap<>(Persona.class);
    private final Map<Persona, Map<String, String>> skipped = new EnumMap<>(Persona.class);

    Personas(PipelineStack stack) {
        super(stack, "Personas");
        this.stack = stack;
        PipelineDefinition definition = stack.getDefinition();
        Map<Persona, List<String>> access = definition.personas();
        this.trust = PersonaTrust.fromContext(this);
        if (trust.fallsBackToAccountRoot()) {
            Annotations.of(this)
                    .addWarning("Sluice personas of pipeline '" + definition.pipeline()
                            + "' trust the account root: set"
                            + " the context value " + PersonaTrust.CONTEXT + " (persona -> principal ARNs, e.g. SSO"
                            + " permission-set roles) to name who may take each persona");
        }
        for (Persona persona : Persona.values()) {
            Role role = Role.Builder.create(this, LogicalNames.pascal(persona.yamlName()))
                    .assumedBy(trust.principal(persona))
                    .description("Sluice pipeline " + definition.pipeline() + ": persona " + persona.yamlName())
                    .build();
            roles.put(persona, role);
            List<String> listed = access.getOrDefault(persona, List.of());
            switch (persona) {
                case ADMIN -> grantAdmin(role);
                case PIPELINE_DEVELOPER, ANALYST -> {
                    Set<PipelineKeys.Use> services = EnumSet.noneOf(PipelineKeys.Use.class);
                    listed.forEach(name -> grantRead(persona, role, name, services));
                    grantKeyVia(role, "kms:Decrypt", services);
                }
                case SOURCE_OPERATOR -> {
                    Set<PipelineKeys.Use> services = EnumSet.noneOf(PipelineKeys.Use.class);
                    listed.forEach(name -> grantSourceWrite(persona, role, name, services));
                    grantKeyVia(role, "kms:GenerateDataKey", services);
                }
                case VIEWER -> grantViewer(role);
            }
        }
    }

    private void grantAdmin(Role role) {
        stack.getStreams().values().forEach(stream -> stream.grantReadWrite(role));
        stack.getTables().values().forEach(table -> table.grantReadWriteData(role));
        stack.getLedgerTable().ifPresent(table -> table.grantReadWriteData(role));
        stack.getLakeBucket().ifPresent(bucket -> bucket.grantReadWrite(role));
        stack.getQueues().values().forEach(queue -> {
            queue.grantSendMessages(role);
            queue.grantConsumeMessages(role);
        });
        // each grant above includes the use of that store's key, which its key policy pins to the service.
        // No secret: the tokenization key stays with the stages that mask (docs/operations.md#access)
        // Operating the pipeline: what the viewer sees, and the stages' logs
        grantViewer(role);
        List<String> logGroups = new java.util.ArrayList<>();
        stack.getLambdaStages()
                .values()
                .forEach(stage -> logGroups.add(stage.getLogGroup().getLogGroupArn()));
        stack.getKclStages()
                .values()
                .forEach(stage -> logGroups.add(stage.getLogGroup().getLogGroupArn()));
        if (!logGroups.isEmpty()) {
            role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                    .actions(ADMIN_LOG_ACTIONS)
                    .resources(logGroups)
                    .build());
        }
    }

    /**
     * The viewer: this pipeline's dashboard and alarms by ARN, and the CloudWatch reads that take no
     * resource (metrics, the dashboard list) on {@code *}.
     */
    private void grantViewer(Role role) {
        Observability observability = stack.getObservability();
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(VIEWER_DASHBOARD_ACTIONS)
                .resources(List.of(observability.getDashboard().getDashboardArn()))
                .build());
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(VIEWER_ALARM_ACTIONS)
                .resources(observability.getAlarms().values().stream()
                        .map(alarm -> alarm.getAlarmArn())
                        .toList())
                .build());
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(VIEWER_UNSCOPED_ACTIONS)
                .resources(List.of("*"))
                .build());
    }

    private void grantRead(Persona persona, Role role, String name, Set<PipelineKeys.Use> services) {
        PipelineDefinition definition = stack.getDefinition();
        if (definition.streams().containsKey(name)) {
            if (definition.streams().get(name).classification() == Classification.RESTRICTED) {
                skip(persona, name, RESTRICTED_STREAM);
                return;
            }
            Stream stream = stack.getStream(name);
            role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                    .actions(STREAM_READ_ACTIONS)
                    .resources(List.of(stream.getStreamArn()))
                    .build());
            services.add(PipelineKeys.Use.STREAMS);
        } else if (definition.lakes().containsKey(name)) {
            LakeDefinition lake = definition.lakes().get(name);
            Bucket bucket = stack.getLakeBucket().orElseThrow();
            role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                    .actions(List.of("s3:GetObject"))
                    .resources(List.of(bucket.arnForObjects(lake.prefix() + "*")))
                    .build());
            role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                    .actions(List.of("s3:ListBucket"))
                    .resources(List.of(bucket.getBucketArn()))
                    .conditions(Map.of("StringLike", Map.of("s3:prefix", List.of(lake.prefix() + "*"))))
                    .build());
            services.add(PipelineKeys.Use.LAKE);
        } else if (definition.tables().containsKey(name)) {
            // Table.grant adds the table actions only, no use of the key
            stack.getTable(name).grant(role, TABLE_READ_ACTIONS.toArray(String[]::new));
            services.add(PipelineKeys.Use.TABLES);
        } else {
            skip(persona, name, DEAD_LETTER_QUEUE);
        }
    }

    /**
     * {@code action} on the keys of the stores the role was granted, only in requests their services
     * make on the role's behalf ({@code kms:ViaService}); nothing when the role was granted no data.
     */
    private void grantKeyVia(Role role, String action, Set<PipelineKeys.Use> uses) {
        uses.forEach(use -> stack.getKeys().grantVia(role, use, List.of(action)));
    }

    private void grantSourceWrite(Persona persona, Role role, String name, Set<PipelineKeys.Use> services) {
        if (!stack.getDefinition().streams().containsKey(name)) {
            skip(persona, name, "source-operator writes to streams only");
            return;
        }
        role.addToPrincipalPolicy(PolicyStatement.Builder.create()
                .actions(SOURCE_WRITE_ACTIONS)
                .resources(List.of(stack.getStream(name).getStreamArn()))
                .build());
        services.add(PipelineKeys.Use.STREAMS);
    }

    private void skip(Persona persona, String resource, String reason) {
        skipped.computeIfAbsent(persona, p -> new LinkedHashMap<>()).put(resource, reason);
        Annotations.of(this)
                .addInfo("Sluice persona '" + persona.yamlName() + "' gets no access to '" + resource + "': " + reason);
    }

    /** The role of each persona. */
    public Map<Persona, Role> getRoles() {
        return Collections.unmodifiableMap(roles);
    }

    /** Who may assume each persona's role. */
    public PersonaTrust getTrust() {
        return trust;
    }

    /** The role of this persona. */
    public Role getRole(Persona persona) {
        return roles.get(persona);
    }

    /**
     * The grants {@code access} asked for and that were not made, by persona, then resource name,
     * with the reason; personas without skips are absent.
     */
    public Map<Persona, Map<String, String>> getSkippedGrants() {
        Map<Persona, Map<String, String>> out = new EnumMap<>(Persona.class);
        skipped.forEach((persona, resources) -> out.put(persona, Collections.unmodifiableMap(resources)));
        return Collections.unmodifiableMap(out);
    }
}
