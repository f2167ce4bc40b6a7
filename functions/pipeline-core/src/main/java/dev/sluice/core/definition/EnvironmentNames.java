package dev.sluice.core.definition;

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
