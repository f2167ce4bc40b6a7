package dev.sluice.cli;

import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import java.util.List;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A deployed pipeline as {@code ./sluice smoke} sees it: physical names by the definition's logical
 * names, and clients acting as each persona. {@link LocalSmokeTarget} is the local stack (each
 * persona with the local credentials of its role), {@link AwsSmokeTarget} a stack in an AWS
 * account (each persona an assumed role); {@link SmokeRun} is the same for both.
 */
interface SmokeTarget extends AutoCloseable {

    /** Where the pipeline runs, for people. */
    String where();

    /** The pipeline's definition. */
    PipelineDefinition definition();

    /** A stream's physical name. */
    String stream(String logicalName);

    /** A table's physical name. */
    String table(String logicalName);

    /** A queue's URL. */
    String queueUrl(String logicalName);

    /** The lake bucket, or {@code null} when the pipeline has no lake. */
    String lakeBucket();

    /** Where the stack's dashboard is (a URL in AWS; locally, where the same figures are). */
    String dashboard();

    KinesisClient kinesis(Persona persona);

    S3Client s3(Persona persona);

    DynamoDbClient dynamoDb(Persona persona);

    SqsClient sqs(Persona persona);

    /**
     * Each Lambda stage's first SnapStart restore since the latest deploy (in definition order), read
     * once the smoke's events went through; locally none, and said so ({@link StageRestore#awsOnly}).
     * Never fails the smoke: what could not be read is a note.
     */
    List<StageRestore> restores();

    @Override
    void close();
}
