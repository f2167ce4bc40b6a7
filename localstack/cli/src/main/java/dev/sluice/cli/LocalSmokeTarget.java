package dev.sluice.cli;

import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsOptions;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.kcl.KclTimings;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The pipeline on a local stack this target starts itself, as {@code ./sluice demo} does: local
 * AWS, the pipeline provisioned from its synthesized CDK template, its Lambda stages behind the
 * local event-source mapping and one local KCL worker per {@code consumer: kcl} stage. Each
 * persona acts with the local credentials of its role (IAM enforced, unless {@code --iam off}).
 */
final class LocalSmokeTarget implements SmokeTarget {

    private final LocalAws aws;
    private final LocalPipeline pipeline;

    private LocalSmokeTarget(LocalAws aws, LocalPipeline pipeline) {
        this.aws = aws;
        this.pipeline = pipeline;
    }

    static LocalSmokeTarget start(LocalAwsOptions options, PipelineDefinition definition, Path root) {
        LocalAws aws = LocalAws.start(options);
        try {
            LocalPipeline pipeline = LocalPipeline.provision(aws, definition, null, root);
            if (definition.stages().values().stream().anyMatch(s -> s.consumer() == ConsumerType.KCL)) {
                pipeline.withKclWorkers(1, KclTimings.LOCAL);
            }
            return new LocalSmokeTarget(aws, pipeline.start());
        } catch (RuntimeException e) {
            aws.close();
            throw e;
        }
    }

    @Override
    public String where() {
        return String.format(
                Locale.ROOT,
                "local AWS (no account), stack %s provisioned from its synthesized template, IAM %s",
                pipeline.resources().stackName(),
                aws.iamEnforced() ? "enforced" : "off");
    }

    @Override
    public PipelineDefinition definition() {
        return pipeline.resources().definition();
    }

    @Override
    public String stream(String logicalName) {
        return pipeline.resources().streams().get(logicalName);
    }

    @Override
    public String table(String logicalName) {
        return pipeline.resources().tables().get(logicalName);
    }

    @Override
    public String queueUrl(String logicalName) {
        return pipeline.resources().queueUrls().get(logicalName);
    }

    @Override
    public String lakeBucket() {
        return definition().lakes().isEmpty() ? null : pipeline.resources().bucket();
    }

    @Override
    public String dashboard() {
        return "none locally (no CloudWatch); the same figures are in " + pipeline.metricsFile();
    }

    @Override
    public KinesisClient kinesis(Persona persona) {
        return aws.kinesis(pipeline.personaCredentials(persona.yamlName()));
    }

    @Override
    public S3Client s3(Persona persona) {
        return aws.s3(pipeline.personaCredentials(persona.yamlName()));
    }

    @Override
    public DynamoDbClient dynamoDb(Persona persona) {
        return aws.dynamoDb(pipeline.personaCredentials(persona.yamlName()));
    }

    @Override
    public SqsClient sqs(Persona persona) {
        return aws.sqs(pipeline.personaCredentials(persona.yamlName()));
    }

    /** No snapshots locally: every Lambda stage's Restore Duration is n/a, never a made-up figure. */
    @Override
    public List<StageRestore> restores() {
        return definition().stages().entrySet().stream()
                .filter(e -> e.getValue().consumer() == ConsumerType.LAMBDA)
                .map(e -> StageRestore.awsOnly(e.getKey()))
                .toList();
    }

    /** The local stack's IAM summary and RESULT fields ({@code iam=… access_denied=…}). */
    String iamFields() {
        return dev.sluice.local.iam.LocalIam.resultFields(aws);
    }

    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            aws.close();
        }
    }
}
