package dev.sluice.lambda.snapstart;

import dev.sluice.aws.StageRuntime;
import dev.sluice.aws.priming.StagePriming;
import dev.sluice.core.definition.PipelineDefinition;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stage function's SnapStart hook ({@code org.crac}; Lambda calls it around the snapshot of a
 * published version).
 *
 * <p>{@link #beforeCheckpoint} primes, with no AWS endpoint and no credentials: the handler's
 * constructor has already loaded the definition and compiled the stage's schemas and expressions;
 * priming then compiles the stage's chain once more with a throw-away key and empty reference data,
 * runs a synthetic batch built from the input schema through it into sinks that keep nothing
 * (Jackson, the validators, masking, CEL and the aggregator run their real code), and has each SDK
 * client type the stage uses send one request of each kind (DynamoDB, S3, SQS, and Kinesis or
 * Secrets Manager when the stage writes a stream or masks) through the stage's HTTP client
 * implementation to {@link dev.sluice.aws.priming.LoopbackAws}, a server on 127.0.0.1 in the function
 * ({@link StagePriming}, which KCL workers run too); the clients, their connections and the server
 * are closed before the snapshot.
 *
 * <p>{@link #afterRestore} re-seeds what every restored copy of one snapshot would otherwise share:
 * the function's {@link #random() random source} (fresh seed bytes from the operating system).
 * Priming leaves no connection open (its own clients and server are closed); the one call the stage makes before
 * the snapshot (a masking stage's chain reads its tokenization key from Secrets Manager when it
 * compiles) may leave a kept-alive connection that does not survive the restore: it fails once and
 * the SDK's standard retry opens a new one.
 */
public final class SnapStartPriming implements Resource {

    private static final Logger LOG = LoggerFactory.getLogger(SnapStartPriming.class);

    /** Records in the priming batch. */
    static final int PRIMING_RECORDS = StagePriming.PRIMING_RECORDS;

    private final StagePriming priming;
    private final String pipelineName;
    private final String stageName;
    private final SecureRandom random;
    private volatile StagePriming.Primed primed;
    private volatile int restores;

    /**
     * @param random the random source to re-seed after a restore (one per function instance)
     */
    public SnapStartPriming(
            PipelineDefinition pipeline, String stageName, Map<String, String> environment, SecureRandom random) {
        this.priming = new StagePriming(pipeline, stageName, environment, random);
        this.pipelineName = pipeline.pipeline();
        this.stageName = stageName;
        this.random = random;
    }

    /** A hook for a stage, registered with the JVM's global CRaC context (held strongly by the caller). */
    public static SnapStartPriming register(StageRuntime runtime, Map<String, String> environment) {
        SnapStartPriming priming =
                new SnapStartPriming(runtime.pipeline(), runtime.stageName(), environment, new SecureRandom());
        Core.getGlobalContext().register(priming);
        return priming;
    }

    @Override
    public void beforeCheckpoint(Context<? extends Resource> context) {
        primed = prime();
        LOG.info(
                "primed stage {}/{} before the snapshot: {} synthetic records ({} accepted), {} SDK requests"
                        + " sent to a loopback server and answered",
                pipelineName,
                stageName,
                primed.records(),
                primed.accepted(),
                primed.sdkRequests());
    }

    @Override
    public void afterRestore(Context<? extends Resource> context) {
        random.setSeed(random.generateSeed(32));
        restores++;
        LOG.info("restored stage {}/{} from its snapshot: random source re-seeded", pipelineName, stageName);
    }

    /** The function's random source, re-seeded after every restore. */
    public SecureRandom random() {
        return random;
    }

    /** What the last priming did, if it ran. */
    public Optional<StagePriming.Primed> primed() {
        return Optional.ofNullable(primed);
    }

    /** Restores seen. */
    public int restores() {
        return restores;
    }

    /** Runs the priming (what {@link #beforeCheckpoint} does); callable without a checkpoint. */
    public StagePriming.Primed prime() {
        return priming.prime();
    }
}
