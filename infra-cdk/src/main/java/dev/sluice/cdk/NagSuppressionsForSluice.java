package dev.sluice.cdk;

import dev.sluice.core.definition.LakeDefinition;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.SinkDefinition;
import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.services.iam.Role;
import software.constructs.IConstruct;

/**
 * Every cdk-nag suppression of a pipeline stack, in one place: each names one resource (never a
 * stack or a subtree), one rule, the findings it covers ({@code appliesTo}, for the IAM rules) and
 * why the finding is intended. {@link SluiceApp#addPipelines} applies them to every stack.
 */
public final class NagSuppressionsForSluice {

    /** One suppression: a rule on one resource, with its reason and, for IAM4/IAM5, the exact findings. */
    public record Suppression(IConstruct resource, String ruleId, String reason, List<String> appliesTo) {
        /** The construct path of the suppressed resource. */
        public String path() {
            return resource.getNode().getPath();
        }
    }

    static final String KMS_WILDCARDS = "the grant helpers' key actions (kms:GenerateDataKey*, kms:ReEncrypt*),"
            + " on the ARNs of the pipeline's keys only";

    private NagSuppressionsForSluice() {}

    /** Applies {@link #of(PipelineStack)} to the stack's resources. */
    public static void apply(PipelineStack stack) {
        for (Suppression s : of(stack)) {
            NagPackSuppression.Builder suppression =
                    NagPackSuppression.builder().id(s.ruleId()).reason(s.reason());
            if (!s.appliesTo().isEmpty()) {
                suppression.appliesTo(new ArrayList<>(s.appliesTo()));
            }
            NagSuppressions.addResourceSuppressions(s.resource(), List.of(suppression.build()), false);
        }
    }

    /** The suppressions of this stack. */
    public static List<Suppression> of(PipelineStack stack) {
        List<Suppression> out = new ArrayList<>();
        stack.getStreams()
                .values()
                .forEach(stream -> out.add(new Suppression(
                        stream,
                        "AwsSolutions-KDS3",
                        "encrypted with the pipeline's customer-managed streams key (rotation on, pinned to Kinesis"
                                + " by its key policy), deliberately not the AWS-managed aws/kinesis key",
                        List.of())));
        stack.getQueues().values().forEach(queue -> {
            String reason = "this queue is the pipeline's dead-letter queue; a dead-letter queue of its own would"
                    + " only move raw records further";
            out.add(new Suppression(queue, "AwsSolutions-SQS3", reason, List.of()));
            out.add(new Suppression(queue, "Serverless-SQSRedrivePolicy", reason, List.of()));
        });
        stack.getSecrets()
                .values()
                .forEach(secret -> out.add(new Suppression(
                        secret,
                        "AwsSolutions-SMG4",
                        "tokenization key: rotating it would change every token and break joins across"
                                + " time; it is generated at deployment and retained",
                        List.of())));
        stack.getLakeAccessLogsBucket()
                .ifPresent(logs -> out.add(new Suppression(
                        logs,
                        "AwsSolutions-S1",
                        "this bucket is the lake bucket's server access log target; logging its own accesses"
                                + " would log the log deliveries",
                        List.of())));
        String bucketArn =
                stack.getLakeBucket().map(NagSuppressionsForSluice::arnToken).orElse(null);
        stack.getLambdaStages().values().forEach(stage -> {
            String runtime = "Java 21 (LTS) is the runtime the Lambda artifact is built and tested for; a newer"
                    + " runtime comes with its own validation";
            out.add(new Suppression(stage.getFunction(), "AwsSolutions-L1", runtime, List.of()));
            out.add(new Suppression(stage.getFunction(), "Serverless-LambdaLatestVersion", runtime, List.of()));
            out.add(new Suppression(
                    stage.getFunction(),
                    "Serverless-LambdaDLQ",
                    "invoked only by its Kinesis event-source mapping, whose on-failure destination is the stage's"
                            + " dead-letter queue; a function DLQ serves asynchronous invocations only",
                    List.of()));
            out.add(new Suppression(
                    stage.getFunction(),
                    "Serverless-LambdaTracing",
                    "tracing off by choice: an invocation of a Kinesis event-source mapping carries no trace"
                            + " context from the producers, so a trace would show one batch in isolation, and it needs"
                            + " xray:PutTraceSegments on *; each batch publishes its own metrics (EMF) to the dashboard",
                    List.of()));
            // no managed policy (no IAM4): the role holds exactly the declared grants and its log group's
            List<String> wildcards = new ArrayList<>(List.of(claimChecks(bucketArn, stack, stage.getStageName())));
            wildcards.addAll(lakeObjects(bucketArn, stack, stage.getStageName()));
            policy(stage.getRole())
                    .ifPresent(policy -> out.add(new Suppression(
                            policy,
                            "AwsSolutions-IAM5",
                            "the objects the stage's code writes, by key prefix: s3:PutObject and s3:GetObject"
                                    + " (HeadObject) under its lake prefix, whose object keys the sink derives from"
                                    + " stream, shard and position; s3:PutObject alone under its dead-letter queue's"
                                    + " claim-check prefix (one object per record too large for a message)",
                            wildcards.stream().distinct().toList())));
        });
        stack.getKclStages().values().forEach(stage -> {
            out.add(new Suppression(
                    stage.getTaskDefinition(),
                    "AwsSolutions-ECS2",
                    "the worker's environment holds resource names, the queue URL and secret ARNs only"
                            + " (EnvironmentNames); secret values are read from Secrets Manager at run time",
                    List.of()));
            List<String> lakeObjects = lakeObjects(bucketArn, stack, stage.getStageName());
            List<String> wildcards = new ArrayList<>(List.of(claimChecks(bucketArn, stack, stage.getStageName())));
            wildcards.addAll(lakeObjects);
            wildcards.add("Resource::*");
            policy((Role) stage.getTaskDefinition().getTaskRole())
                    .ifPresent(policy -> out.add(new Suppression(
                            policy,
                            "AwsSolutions-IAM5",
                            "cloudwatch:PutMetricData (KCL's metrics), which has no resource type, limited to the"
                                    + " application's namespace by condition; s3:PutObject alone on the objects under"
                                    + " its dead-letter queue's claim-check prefix (one object per record too large"
                                    + " for a message, keyed by its position)"
                                    + (lakeObjects.isEmpty()
                                            ? ""
                                            : "; s3:PutObject and s3:GetObject (HeadObject) under its lake prefix,"
                                                    + " whose object keys the sink derives from stream, shard and"
                                                    + " position"),
                            wildcards.stream().distinct().toList())));
            if (stage.isEcrImage()) {
                policy((Role) stage.getTaskDefinition().getExecutionRole())
                        .ifPresent(policy -> out.add(new Suppression(
                                policy,
                                "AwsSolutions-IAM5",
                                "ecr:GetAuthorizationToken takes no resource; image pulls are limited to the worker"
                                        + " image's repository",
                                List.of("Resource::*"))));
            }
        });
        Personas personas = stack.getPersonas();
        List<String> admin =
                new ArrayList<>(List.of("Action::kms:GenerateDataKey*", "Action::kms:ReEncrypt*", "Resource::*"));
        if (bucketArn != null) {
            admin.addAll(List.of(
                    "Action::s3:Abort*",
                    "Action::s3:DeleteObject*",
                    "Action::s3:GetBucket*",
                    "Action::s3:GetObject*",
                    "Action::s3:List*",
                    "Resource::" + bucketArn + "/*"));
        }
        policy(personas.getRole(Persona.ADMIN))
                .ifPresent(policy -> out.add(new Suppression(
                        policy,
                        "AwsSolutions-IAM5",
                        "admin persona: read and write the whole lake bucket of this pipeline (all its objects); the"
                                + " viewer's CloudWatch reads that have no resource type (GetMetricData,"
                                + " GetMetricStatistics, ListMetrics, ListDashboards: only * names them); and "
                                + KMS_WILDCARDS,
                        admin)));
        for (Persona reader : List.of(Persona.PIPELINE_DEVELOPER, Persona.ANALYST)) {
            List<String> prefixes = stack.getDefinition().personas().getOrDefault(reader, List.of()).stream()
                    .filter(name -> stack.getDefinition().lakes().containsKey(name))
                    .map(name -> "Resource::" + bucketArn + "/"
                            + stack.getDefinition().lakes().get(name).prefix() + "*")
                    .toList();
            if (!prefixes.isEmpty()) {
                policy(personas.getRole(reader))
                        .ifPresent(policy -> out.add(new Suppression(
                                policy,
                                "AwsSolutions-IAM5",
                                reader.yamlName() + " persona: s3:GetObject on the objects under the lake prefixes"
                                        + " listed for it in access, nothing else of the bucket",
                                prefixes)));
            }
        }
        policy(personas.getRole(Persona.VIEWER))
                .ifPresent(policy -> out.add(new Suppression(
                        policy,
                        "AwsSolutions-IAM5",
                        "viewer persona: cloudwatch:GetMetricData, GetMetricStatistics, ListMetrics and"
                                + " ListDashboards have no resource type (only * names them); GetDashboard and"
                                + " DescribeAlarms/DescribeAlarmHistory are granted on this pipeline's dashboard and"
                                + " alarm ARNs",
                        List.of("Resource::*"))));
        return out;
    }

    /** The finding for a stage's put on its dead-letter queue's claim checks. */
    /** The objects under each lake prefix the stage writes, as cdk-nag names them. */
    private static List<String> lakeObjects(String bucketArn, PipelineStack stack, String stageName) {
        List<String> objects = new ArrayList<>();
        for (SinkDefinition sink : stack.getDefinition().stages().get(stageName).sinks()) {
            if (sink.kind() == SinkDefinition.Kind.LAKE) {
                LakeDefinition lake = stack.getDefinition().lakes().get(sink.lake());
                objects.add("Resource::" + bucketArn + "/" + lake.prefix() + "*");
            }
        }
        return objects;
    }

    private static String claimChecks(String bucketArn, PipelineStack stack, String stageName) {
        String queue = stack.getDefinition().stages().get(stageName).failure().deadLetterQueue();
        return "Resource::" + bucketArn + "/" + dev.sluice.core.event.DeadLetter.claimCheckPrefix(queue) + "*";
    }

    private static java.util.Optional<IConstruct> policy(Role role) {
        return java.util.Optional.ofNullable(role.getNode().tryFindChild("DefaultPolicy"));
    }

    /** How cdk-nag writes a resource's ARN in a finding: {@code <LogicalId.Arn>}. */
    private static String arnToken(IConstruct resource) {
        return "<"
                + Stack.of(resource)
                        .getLogicalId((CfnElement) resource.getNode().getDefaultChild()) + ".Arn>";
    }
}
