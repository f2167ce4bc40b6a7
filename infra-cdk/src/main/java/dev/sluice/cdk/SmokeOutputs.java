package dev.sluice.cdk;

import dev.sluice.core.definition.Persona;
import software.amazon.awscdk.CfnOutput;
import software.constructs.Construct;

/**
 * The stack outputs {@code ./sluice smoke --aws} reads after a deploy: each persona role's ARN (to
 * {@code sts:AssumeRole} into) and the physical names of the pipeline's streams, tables, queues
 * and lake bucket, keyed by the definition's logical names, and each Lambda stage function's log
 * group (where it reads the REPORT line of the first SnapStart restore). Output ids are stable:
 * {@code PersonaRole<Persona>}, {@code Stream<Name>}, {@code Table<Name>}, {@code QueueUrl<Name>},
 * {@code LakeBucket}, {@code FunctionLogGroup<Stage>} (names in PascalCase, e.g. {@code
 * PersonaRoleSourceOperator}, {@code TablePaymentsById}, {@code FunctionLogGroupValidate}).
 */
public final class SmokeOutputs {

    private SmokeOutputs() {}

    /** The output holding a persona role's ARN. */
    public static String personaRole(Persona persona) {
        return "PersonaRole" + LogicalNames.pascal(persona.yamlName());
    }

    /** The output holding a stream's physical name. */
    public static String stream(String logicalName) {
        return "Stream" + LogicalNames.pascal(logicalName);
    }

    /** The output holding a table's physical name. */
    public static String table(String logicalName) {
        return "Table" + LogicalNames.pascal(logicalName);
    }

    /** The output holding a queue's URL. */
    public static String queueUrl(String logicalName) {
        return "QueueUrl" + LogicalNames.pascal(logicalName);
    }

    /** The output holding the name of a Lambda stage function's log group. */
    public static String functionLogGroup(String stageName) {
        return "FunctionLogGroup" + LogicalNames.pascal(stageName);
    }

    /** The output holding the lake bucket's name. */
    public static final String LAKE_BUCKET = "LakeBucket";

    /** Declares the outputs of a pipeline stack. */
    static void declare(PipelineStack stack) {
        Construct scope = new Construct(stack, "SmokeOutputs");
        stack.getPersonas()
                .getRoles()
                .forEach((persona, role) -> output(
                        scope,
                        personaRole(persona),
                        "ARN of the " + persona.yamlName() + " persona role (./sluice smoke --aws assumes it)",
                        role.getRoleArn()));
        stack.getStreams()
                .forEach((name, stream) ->
                        output(scope, stream(name), "Kinesis stream " + name, stream.getStreamName()));
        stack.getTables()
                .forEach((name, table) -> output(scope, table(name), "DynamoDB table " + name, table.getTableName()));
        stack.getQueues()
                .forEach((name, queue) -> output(scope, queueUrl(name), "SQS queue " + name, queue.getQueueUrl()));
        stack.getLakeBucket().ifPresent(bucket -> output(scope, LAKE_BUCKET, "S3 lake bucket", bucket.getBucketName()));
        stack.getLambdaStages()
                .forEach((name, stage) -> output(
                        scope,
                        functionLogGroup(name),
                        "Log group of the " + name
                                + " stage function (./sluice smoke --aws reads its Restore Duration)",
                        stage.getLogGroup().getLogGroupName()));
    }

    private static void output(Construct scope, String id, String description, String value) {
        CfnOutput output = CfnOutput.Builder.create(scope, id)
                .description(description)
                .value(value)
                .build();
        output.overrideLogicalId(id); // stable: ./sluice smoke --aws looks them up by these ids
    }
}
