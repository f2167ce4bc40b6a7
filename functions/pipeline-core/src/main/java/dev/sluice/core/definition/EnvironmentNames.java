package dev.sluice.core.definition;

import java.util.List;
import java.util.Locale;

/**
 * The environment variables a Sluice function reads. They hold names and URLs of resources, never
 * secrets; infra-cdk sets them in AWS and the local runner sets them locally.
 */
public final class EnvironmentNames {

    /** The pipeline's name; its definition is packaged in the artifact. */
    public static final String PIPELINE = "SLUICE_PIPELINE";
    /** The stage this function runs. */
    public static final String STAGE = "SLUICE_STAGE";
    /** The lake bucket's name. */
    public static final String LAKE_BUCKET = "SLUICE_LAKE_BUCKET";
    /**
     * The lake's commit ledger table (one per pipeline): the last position committed to the lake per
     * lake prefix, stream, shard and event hour, and the object being written.
     */
    public static final String LEDGER_TABLE = "SLUICE_LEDGER_TABLE";
    /** Prefix of the table variables: {@code SLUICE_TABLE_PAYMENTS_BY_ID} for table {@code payments-by-id}. */
    public static final String TABLE_PREFIX = "SLUICE_TABLE_";
    /** Prefix of the stream variables: {@code SLUICE_STREAM_CLICKS_BY_PAGE} for stream sinks. */
    public static final String STREAM_PREFIX = "SLUICE_STREAM_";
    /**
     * Local runs only: a folder of secret files ({@code <folder>/<secret-name>}). In AWS secrets come
     * from Secrets Manager, named by {@link #SECRET_ID_PREFIX} variables.
     */
    public static final String SECRETS_DIR = "SLUICE_SECRETS_DIR";
    /**
     * Prefix of the variables naming a secret's Secrets Manager id (name or ARN — never its value):
     * {@code SLUICE_SECRET_ID_TOKENIZATION_KEY}.
     */
    public static final String SECRET_ID_PREFIX = "SLUICE_SECRET_ID_";
    /** Prefix of the queue URL variables: {@code SLUICE_QUEUE_URL_PAYMENTS_DLQ}. */
    public static final String QUEUE_URL_PREFIX = "SLUICE_QUEUE_URL_";
    /**
     * Optional folder of pipeline definitions to read instead of the packaged ones (local runs read
     * the repository's {@code pipelines/} so edits need no rebuild).
     */
    public static final String PIPELINES_DIR = "SLUICE_PIPELINES_DIR";
    /**
     * Optional definition file to read instead of {@code <PIPELINES_DIR>/<pipeline>.yaml} or the
     * packaged one: local runs of a definition given by path ({@code ./sluice load --pipeline FILE})
     * set it, so every process reads exactly the file the user named. Its {@code pipeline:} must be
     * {@link #PIPELINE}.
     */
    public static final String PIPELINE_FILE = "SLUICE_PIPELINE_FILE";
    /** Optional folder of schemas to read instead of the packaged ones. */
    public static final String SCHEMAS_DIR = "SLUICE_SCHEMAS_DIR";
    /**
     * Optional file that metrics (CloudWatch Embedded Metric Format, one JSON document per line) are
     * appended to instead of standard output; set by local runs, never in AWS.
     */
    public static final String METRICS_FILE = "SLUICE_METRICS_FILE";

    /**
     * KCL stages only: the KCL application name (also the namespace of KCL's CloudWatch metrics and
     * the name of its enhanced fan-out consumer).
     */
    public static final String KCL_APPLICATION = "SLUICE_KCL_APPLICATION";
    /** KCL stages only: the physical name of the input stream the workers read. */
    public static final String KCL_STREAM = "SLUICE_KCL_STREAM";
    /** KCL stages only: the lease table the stack provisions (KCL must not create it). */
    public static final String KCL_LEASE_TABLE = "SLUICE_KCL_LEASE_TABLE";

    /** Which process reads a variable. */
    public enum Reader {
        /** Every stage, Lambda function or KCL worker alike: {@code StageRuntime} in functions/aws. */
        STAGE,
        /** The KCL worker only (functions/kcl). */
        KCL_WORKER
    }

    /**
     * One environment variable of a stage.
     *
     * @param name the variable, or for a family the prefix its members start with
     * @param family whether {@code name} is a prefix followed by a logical name in upper snake case
     * @param readBy the process that reads it
     * @param localOnly whether only local runs set it (never infra-cdk in AWS)
     * @param meaning what it holds, in a few words
     */
    public record Variable(String name, boolean family, Reader readBy, boolean localOnly, String meaning) {

        /** How the documentation writes it: a family as {@code SLUICE_TABLE_<NAME>}. */
        public String documented() {
            return family ? name + "<NAME>" : name;
        }
    }

    /**
     * Every variable a stage reads, the one source of truth for the table in {@code
     * docs/pipeline-definition.md} (a test compares them) and for this class's constants.
     */
    public static final List<Variable> VARIABLES = List.of(
            new Variable(PIPELINE, false, Reader.STAGE, false, "which definition to run"),
            new Variable(STAGE, false, Reader.STAGE, false, "which stage of it"),
            new Variable(LAKE_BUCKET, false, Reader.STAGE, false, "the lake bucket"),
            new Variable(LEDGER_TABLE, false, Reader.STAGE, false, "the lake's commit ledger table"),
            new Variable(TABLE_PREFIX, true, Reader.STAGE, false, "the physical name of a table"),
            new Variable(STREAM_PREFIX, true, Reader.STAGE, false, "the physical name of a stream"),
            new Variable(QUEUE_URL_PREFIX, true, Reader.STAGE, false, "the URL of a queue"),
            new Variable(SECRET_ID_PREFIX, true, Reader.STAGE, false, "the Secrets Manager id of a secret"),
            new Variable(SECRETS_DIR, false, Reader.STAGE, true, "the folder of secret files"),
            new Variable(PIPELINE_FILE, false, Reader.STAGE, true, "the definition file to read"),
            new Variable(PIPELINES_DIR, false, Reader.STAGE, true, "the folder of definitions to read"),
            new Variable(SCHEMAS_DIR, false, Reader.STAGE, true, "the folder of schemas to read"),
            new Variable(METRICS_FILE, false, Reader.STAGE, true, "the file metrics are appended to"),
            new Variable(KCL_APPLICATION, false, Reader.KCL_WORKER, false, "the KCL application name"),
            new Variable(KCL_STREAM, false, Reader.KCL_WORKER, false, "the input stream's physical name"),
            new Variable(KCL_LEASE_TABLE, false, Reader.KCL_WORKER, false, "the provisioned lease table"));

    private EnvironmentNames() {}

    /** The variable holding the physical name of a table. */
    public static String table(String logicalName) {
        return TABLE_PREFIX + upperSnake(logicalName);
    }

    /** The variable holding the physical name of a stream. */
    public static String stream(String logicalName) {
        return STREAM_PREFIX + upperSnake(logicalName);
    }

    /** The variable holding the Secrets Manager id of a secret. */
    public static String secretId(String secretName) {
        return SECRET_ID_PREFIX + upperSnake(secretName);
    }

    /** The variable holding the URL of a queue. */
    public static String queueUrl(String logicalName) {
        return QUEUE_URL_PREFIX + upperSnake(logicalName);
    }

    public static String upperSnake(String logicalName) {
        return logicalName.toUpperCase(Locale.ROOT).replace('-', '_');
    }
}
