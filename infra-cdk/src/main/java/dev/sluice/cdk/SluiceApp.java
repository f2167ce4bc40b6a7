package dev.sluice.cdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.ConsumerType;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.cxapi.CloudAssembly;
import software.amazon.awscdk.cxapi.CloudFormationStackArtifact;

/**
 * The CDK app: one {@link PipelineStack} per {@code pipelines/*.yaml}, named {@code
 * sluice-<pipeline>}. Every stage is deployed ({@code consumer: lambda} as a function, {@code
 * consumer: kcl} as a {@link KclStage} service); a stage that could not be would be listed after
 * synthesis with the reason ({@link PipelineStack#getSkippedStages()}).
 *
 * <p>Inputs:
 *
 * <ul>
 *   <li>the repository root, from {@code -Dsluice.root} or found by walking up to {@code
 *       pipelines/} ({@link SluiceRoot});
 *   <li>the context value {@value #LAMBDA_ARTIFACT_CONTEXT}: path of the Lambda deployment zip. The
 *       CDK CLI sets it with {@code -c sluice:lambdaArtifact=PATH}; otherwise {@code
 *       -Dsluice.lambdaArtifact} (which the Maven build sets to {@code
 *       functions/lambda/target/sluice-lambda-<version>-lambda.zip}) is the default;
 *   <li>the KCL worker image, for pipelines with {@code consumer: kcl} stages: {@value
 *       KclStage#IMAGE_CONTEXT} (an ECR image by digest; default the environment variable {@value
 *       #KCL_IMAGE_ENVIRONMENT}), else {@value KclStage#IMAGE_TARBALL_CONTEXT} (the image tarball, built
 *       into a container image asset; default {@code -Dsluice.kclImageTarball}, which the Maven build
 *       sets to {@value KclStage#DEFAULT_TARBALL}, when that file exists). A pipeline whose KCL stages
 *       have neither is refused alone ({@link #addPipelines(App, Path, Map)}): its stack is left out,
 *       one line on stderr says how to get an image, the other stacks are synthesized;
 *   <li>the output folder: {@code CDK_OUTDIR} when the CDK CLI runs the app, else {@code
 *       -Dsluice.cdk.outdir}, else {@code cdk.out}.
 * </ul>
 */
public final class SluiceApp {

    /** Context key holding the path of the Lambda deployment zip. */
    public static final String LAMBDA_ARTIFACT_CONTEXT = "sluice:lambdaArtifact";

    /** System property giving the default of {@value #LAMBDA_ARTIFACT_CONTEXT}. */
    public static final String LAMBDA_ARTIFACT_PROPERTY = "sluice.lambdaArtifact";

    /**
     * Environment variable giving the default of {@value KclStage#IMAGE_CONTEXT} (for {@code ./sluice
     * synth}, which passes no context); {@code -c sluice:kclImage=...} overrides it.
     */
    public static final String KCL_IMAGE_ENVIRONMENT = "SLUICE_KCL_IMAGE";

    /**
     * System property giving the default of {@value KclStage#IMAGE_TARBALL_CONTEXT}, taken only when the
     * file exists; the Maven build sets it to {@value KclStage#DEFAULT_TARBALL} under the root.
     */
    public static final String KCL_IMAGE_TARBALL_PROPERTY = "sluice.kclImageTarball";

    /** System property naming the output folder when the CDK CLI does not set {@code CDK_OUTDIR}. */
    public static final String OUTDIR_PROPERTY = "sluice.cdk.outdir";

    /** Prefix of every stack's name. */
    public static final String STACK_PREFIX = "sluice-";

    private SluiceApp() {}

    public static void main(String[] args) {
        Path root = SluiceRoot.locate();
        AppProps.Builder props = AppProps.builder();
        Map<String, Object> defaults = defaultContext(System.getProperties(), System.getenv());
        props.context(defaults); // context given to the CDK CLI (-c, cdk.json) overrides these
        if (System.getenv("CDK_OUTDIR") == null) {
            props.outdir(System.getProperty(OUTDIR_PROPERTY, "cdk.out"));
        }
        App app = new App(props.build());
        List<PipelineStack> stacks;
        Map<String, String> refused = new LinkedHashMap<>();
        try {
            stacks = addPipelines(app, root, refused);
        } catch (SynthesisRefusedException e) {
            // one line for cdk synth/deploy (and ./sluice synth) to show, before anything is deployed
            System.err.println("sluice: " + e.getMessage());
            System.exit(1);
            return;
        }
        // a refused stack is left out of the assembly; the others deploy (cdk deploy sluice-payments)
        refused.values().forEach(reason -> System.err.println("sluice: " + reason));
        NagChecks.apply(app); // findings are annotations: counted below, errors also shown by the CDK CLI
        CloudAssembly assembly = app.synth();
        removeRefused(Path.of(assembly.getDirectory()), refused.keySet());
        summary(assembly, stacks, refused).forEach(System.out::println);
    }

    /**
     * The context values the app starts with, from its system properties and environment: {@value
     * #LAMBDA_ARTIFACT_CONTEXT} from {@value #LAMBDA_ARTIFACT_PROPERTY}, {@value KclStage#IMAGE_CONTEXT}
     * from {@value #KCL_IMAGE_ENVIRONMENT}, {@value KclStage#IMAGE_TARBALL_CONTEXT} from {@value
     * #KCL_IMAGE_TARBALL_PROPERTY} when that file exists (a tarball not built yet is no image). Context
     * given to the CDK CLI overrides them.
     */
    static Map<String, Object> defaultContext(Properties properties, Map<String, String> environment) {
        Map<String, Object> defaults = new HashMap<>();
        String artifact = properties.getProperty(LAMBDA_ARTIFACT_PROPERTY);
        if (artifact != null && !artifact.isBlank()) {
            defaults.put(LAMBDA_ARTIFACT_CONTEXT, artifact);
        }
        String kclImage = environment.get(KCL_IMAGE_ENVIRONMENT);
        if (kclImage != null && !kclImage.isBlank()) {
            defaults.put(KclStage.IMAGE_CONTEXT, kclImage);
        }
        String tarball = properties.getProperty(KCL_IMAGE_TARBALL_PROPERTY);
        if (tarball != null && !tarball.isBlank() && Files.isRegularFile(Path.of(tarball))) {
            defaults.put(KclStage.IMAGE_TARBALL_CONTEXT, tarball);
        }
        return defaults;
    }

    /**
     * What a synthesis produced, for people and scripts: which stacks went where, per stack its
     * resources, dashboard, alarms, cdk-nag findings and undeployed stages, the stacks refused (stack name
     * → reason, {@link #addPipelines(App, Path, Map)}), and a last line {@code RESULT stacks=N resources=N
     * nag_errors=N nag_warnings=N nag_suppressed=N refused=N} (stacks synthesized, resources summed over
     * their templates; the cdk-nag AwsSolutions and Serverless packs must have been {@linkplain
     * NagChecks#apply applied} to the app).
     */
    static List<String> summary(CloudAssembly assembly, List<PipelineStack> stacks, Map<String, String> refused) {
        List<String> lines = new ArrayList<>();
        lines.add("Synthesized " + stacks.size() + " pipeline stack(s) into " + assembly.getDirectory() + ": "
                + stacks.stream().map(PipelineStack::getStackName).toList());
        int total = 0;
        int errors = 0;
        int warnings = 0;
        int suppressed = 0;
        for (PipelineStack stack : stacks) {
            NagChecks.Counts nag = NagChecks.count(stack);
            errors += nag.errors();
            warnings += nag.warnings();
            suppressed += nag.suppressed();
            int resources = resourceCount(assembly.getStackByName(stack.getStackName()));
            total += resources;
            Observability observability = stack.getObservability();
            lines.add("  " + stack.getStackName() + ": " + resources + " resources, dashboard "
                    + Observability.dashboardName(stack.getDefinition().pipeline()) + ", "
                    + observability.getAlarms().size() + " alarms -> SNS topic (output "
                    + Observability.ALARM_TOPIC_OUTPUT + ")");
            lines.add("  " + stack.getStackName() + ": cdk-nag " + nag.errors() + " errors, " + nag.warnings()
                    + " warnings, " + nag.suppressed() + " suppressed with reasons (NagSuppressionsForSluice)");
            stack.getSkippedStages()
                    .forEach((stage, reason) ->
                            lines.add("  " + stack.getStackName() + ": stage '" + stage + "' not deployed: " + reason));
        }
        refused.keySet()
                .forEach(stack -> lines.add("  " + stack + ": not synthesized: its KCL stages have no worker image"
                        + " (context " + KclStage.IMAGE_CONTEXT + " or " + KclStage.IMAGE_TARBALL_CONTEXT + ")"));
        lines.add("RESULT stacks=" + stacks.size() + " resources=" + total + " nag_errors=" + errors + " nag_warnings="
                + warnings + " nag_suppressed=" + suppressed + " refused=" + refused.size());
        return lines;
    }

    /**
     * Deletes what an earlier synthesis into the same folder left of the refused stacks (template,
     * assets and metadata files), so that {@code cdk.out} never shows a template this synthesis did not
     * write; the assembly's manifest already names none of them.
     */
    static void removeRefused(Path outdir, Collection<String> refusedStacks) {
        for (String stack : refusedStacks) {
            for (String suffix : List.of(".template.json", ".assets.json", ".metadata.json")) {
                try {
                    Files.deleteIfExists(outdir.resolve(stack + suffix));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot remove " + outdir.resolve(stack + suffix), e);
                }
            }
        }
    }

    /** Entries of the {@code Resources} section of a synthesized stack's template. */
    @SuppressWarnings("unchecked")
    static int resourceCount(CloudFormationStackArtifact artifact) {
        Map<String, Object> template = (Map<String, Object>) artifact.getTemplate();
        Object resources = template.get("Resources");
        return resources instanceof Map<?, ?> map ? map.size() : 0;
    }

    /**
     * Adds one stack per {@code pipelines/*.yaml} under {@code root} to the app, each with its
     * cdk-nag suppressions ({@link NagSuppressionsForSluice}); every one or none.
     *
     * @throws IllegalStateException when {@value #LAMBDA_ARTIFACT_CONTEXT} is not set or names no file
     * @throws SynthesisRefusedException when a pipeline with {@code consumer: kcl} stages has no worker
     *     image, or an image context value is wrong
     */
    public static List<PipelineStack> addPipelines(App app, Path root) {
        Map<String, String> refused = new LinkedHashMap<>();
        List<PipelineStack> stacks = addPipelines(app, root, refused);
        if (!refused.isEmpty()) {
            throw new SynthesisRefusedException(refused.values().iterator().next());
        }
        return stacks;
    }

    /**
     * Adds one stack per {@code pipelines/*.yaml} under {@code root} to the app, each with its cdk-nag
     * suppressions ({@link NagSuppressionsForSluice}), except the stacks of pipelines whose {@code
     * consumer: kcl} stages have no worker image ({@link KclStage#imageSource} is {@code NONE}): those are
     * not added, and {@code refused} gets their stack name → one line saying how to get an image. A stack
     * without KCL stages never needs one.
     *
     * @throws IllegalStateException when {@value #LAMBDA_ARTIFACT_CONTEXT} is not set or names no file
     * @throws SynthesisRefusedException when an image context value is given but wrong (not an ECR image
     *     by digest, a tarball that does not exist)
     */
    public static List<PipelineStack> addPipelines(App app, Path root, Map<String, String> refused) {
        Path artifact = lambdaArtifact(app);
        DefinitionLoader loader =
                new DefinitionLoader(SchemaCatalog.fromDirectory(root.resolve("schemas"), new ObjectMapper()));
        List<PipelineStack> stacks = new ArrayList<>();
        for (PipelineDefinition definition : loader.loadAll(root.resolve("pipelines"))) {
            String stackName = STACK_PREFIX + definition.pipeline();
            List<String> kclStages = definition.stages().entrySet().stream()
                    .filter(stage -> stage.getValue().consumer() == ConsumerType.KCL
                            && PipelineStack.skipReason(stage.getValue()) == null)
                    .map(Map.Entry::getKey)
                    .toList();
            if (!kclStages.isEmpty() && KclStage.imageSource(app) == KclStage.ImageSource.NONE) {
                refused.put(stackName, KclStage.missingImage(definition.pipeline(), kclStages));
                continue;
            }
            PipelineStack stack = new PipelineStack(app, stackName, new PipelineStackProps(definition, artifact, null));
            NagSuppressionsForSluice.apply(stack);
            stacks.add(stack);
        }
        return stacks;
    }

    /** The Lambda deployment zip named by the {@value #LAMBDA_ARTIFACT_CONTEXT} context value. */
    static Path lambdaArtifact(App app) {
        Object value = app.getNode().tryGetContext(LAMBDA_ARTIFACT_CONTEXT);
        if (value == null || value.toString().isBlank()) {
            throw new IllegalStateException("context value " + LAMBDA_ARTIFACT_CONTEXT
                    + " is not set: pass -c " + LAMBDA_ARTIFACT_CONTEXT + "=PATH to the CDK CLI, or run"
                    + " ./mvnw -pl infra-cdk exec:java, which defaults it to the functions/lambda build");
        }
        Path artifact = Path.of(value.toString()).toAbsolutePath().normalize();
        if (!Files.isRegularFile(artifact)) {
            throw new IllegalStateException("the Lambda artifact " + artifact + " (context " + LAMBDA_ARTIFACT_CONTEXT
                    + ") does not exist: build it with ./mvnw -B -pl functions/lambda -am package -DskipTests,"
                    + " or point " + LAMBDA_ARTIFACT_CONTEXT + " at an existing zip");
        }
        return artifact;
    }
}
