package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.PipelineDefinition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.cxapi.CloudAssembly;
import software.amazon.awscdk.cxapi.CloudFormationStackArtifact;

/**
 * The KCL worker image a {@code consumer: kcl} stage runs: an ECR image by digest in {@value
 * KclStage#IMAGE_CONTEXT}, else the image tarball in {@value KclStage#IMAGE_TARBALL_CONTEXT} as a
 * container image asset. With neither, the pipeline's stack is refused alone with one line saying how to
 * get an image, and the other stacks synthesize — no placeholder is deployed. Only the local stack's
 * in-process template goes without one.
 */
class KclImageTest {

    /** The line {@code clickstream} is refused with when it has no image. */
    static final String CLICKSTREAM_REFUSED = "pipeline 'clickstream', stage 'page-counts' (consumer: kcl) has no"
            + " worker image (context sluice:kclImage or sluice:kclImageTarball): build the image tarball with"
            + " ./mvnw -B -pl functions/kcl -am package -DskipTests -Pworker-image (./sluice synth and npx cdk"
            + " synth|deploy build it when missing; cdk deploy then needs Docker), or pass -c"
            + " sluice:kclImage=<account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<digest>"
            + " (docs/operations.md, \"Deploying the KCL worker image\")";

    @TempDir
    Path dir;

    private App app(Map<String, Object> context) throws IOException {
        Map<String, Object> all = new java.util.HashMap<>(context);
        all.put(SluiceApp.LAMBDA_ARTIFACT_CONTEXT, TestApps.lambdaZip(dir).toString());
        return new App(AppProps.builder()
                .outdir(dir.resolve("cdk.out").toString())
                .context(all)
                .build());
    }

    /** A stand-in for the Jib tarball: the asset only hashes and copies it. */
    private Path tarball() throws IOException {
        Path tarball = dir.resolve("sluice-kcl-arm64.tar");
        Files.write(tarball, "stand-in for the worker image tarball".getBytes(StandardCharsets.UTF_8));
        return tarball;
    }

    @Test
    void withoutAnImageOnlyTheKclPipelineIsRefusedWithOneLineSayingHowToGetOne() throws IOException {
        App app = app(Map.of());
        Map<String, String> refused = new LinkedHashMap<>();

        List<PipelineStack> stacks = SluiceApp.addPipelines(app, SluiceRoot.locate(), refused);

        assertThat(refused).containsOnlyKeys("sluice-clickstream");
        assertThat(refused.get("sluice-clickstream"))
                .isEqualTo(CLICKSTREAM_REFUSED)
                .doesNotContain("\n");
        assertThat(stacks).extracting(PipelineStack::getStackName).contains("sluice-payments");
        assertThat(stacks).extracting(PipelineStack::getStackName).doesNotContain("sluice-clickstream");
        assertThat(stacks).allSatisfy(stack -> assertThat(stack.getKclStages()).isEmpty());
        NagChecks.apply(app);
        CloudAssembly assembly = app.synth();
        assertThat(assembly.getStacks())
                .extracting(CloudFormationStackArtifact::getStackName)
                .containsExactlyInAnyOrderElementsOf(
                        stacks.stream().map(PipelineStack::getStackName).toList());
        stacks.forEach(stack ->
                assertThat(NagChecks.errors(stack)).as(stack.getStackName()).isEmpty());

        List<String> summary = SluiceApp.summary(assembly, stacks, refused);
        assertThat(summary.get(summary.size() - 1))
                .startsWith("RESULT stacks=" + stacks.size() + " ")
                .endsWith(" refused=1");
        assertThat(summary)
                .contains("  sluice-clickstream: not synthesized: its KCL stages have no worker image"
                        + " (context sluice:kclImage or sluice:kclImageTarball)");
    }

    @Test
    void addPipelinesWithoutARefusedMapStopsAtTheFirstRefusal() throws IOException {
        App app = app(Map.of());
        assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate()))
                .isInstanceOf(SynthesisRefusedException.class)
                .hasMessage(CLICKSTREAM_REFUSED);
    }

    @Test
    void withTheTarballTheWorkerRunsAContainerImageAssetFromIt() throws IOException {
        Path tarball = tarball();
        App app = app(Map.of(KclStage.IMAGE_TARBALL_CONTEXT, tarball.toString()));
        PipelineStack clickstream = TestApps.stack(SluiceApp.addPipelines(app, SluiceRoot.locate()), "clickstream");
        NagChecks.apply(app);
        KclStage stage = clickstream.getKclStage("page-counts");
        CloudAssembly assembly = app.synth();

        // the task definition names the asset's image in the bootstrap repository, tagged with its hash
        JsonNode template = new ObjectMapper()
                .readTree(Path.of(assembly.getStackByName("sluice-clickstream").getTemplateFullPath())
                        .toFile());
        List<JsonNode> images = containerImages(template);
        assertThat(images).hasSize(1);
        String image = images.get(0).toString();
        assertThat(image)
                .contains("Fn::Sub")
                .contains("cdk-hnb659fds-container-assets-${AWS::AccountId}-${AWS::Region}");
        JsonNode manifest = new ObjectMapper()
                .readTree(dir.resolve("cdk.out")
                        .resolve("sluice-clickstream.assets.json")
                        .toFile());
        List<String> hashes = new ArrayList<>();
        manifest.get("dockerImages").fieldNames().forEachRemaining(hashes::add);
        assertThat(hashes).hasSize(1);
        assertThat(image).contains(":" + hashes.get(0));
        // published by cdk deploy: docker load of the tarball, staged into the assembly
        JsonNode source = manifest.at("/dockerImages/" + hashes.get(0) + "/source");
        assertThat(source.get("executable").toString()).contains("docker load");
        assertThat(dir.resolve("cdk.out").resolve("asset." + hashes.get(0) + ".tar"))
                .hasSameBinaryContentAs(tarball);

        assertThat(stage.getImageTarball()).contains(tarball.toAbsolutePath().normalize());
        assertThat(stage.isEcrImage()).isTrue();
        // the asset grants the pull itself, from the bootstrap repository only; cdk-nag stays clean
        String executionPolicies = executionRolePolicies(template, stage);
        assertThat(executionPolicies).contains("ecr:BatchGetImage").contains("cdk-hnb659fds-container-assets-");
        assertThat(executionPolicies).doesNotContain("repository/sluice-kcl");
        assertThat(NagChecks.errors(clickstream)).isEmpty();
        assertThat(NagChecks.warnings(clickstream)).isEmpty();
    }

    @Test
    void theDigestWinsOverTheTarballAndNeedsNoAsset() throws IOException {
        App app = app(Map.of(
                KclStage.IMAGE_TARBALL_CONTEXT, tarball().toString(), KclStage.IMAGE_CONTEXT, TestApps.KCL_IMAGE));
        PipelineStack clickstream = TestApps.stack(SluiceApp.addPipelines(app, SluiceRoot.locate()), "clickstream");
        CloudAssembly assembly = app.synth();

        JsonNode template = new ObjectMapper()
                .readTree(Path.of(assembly.getStackByName("sluice-clickstream").getTemplateFullPath())
                        .toFile());
        assertThat(containerImages(template)).extracting(JsonNode::asText).containsExactly(TestApps.KCL_IMAGE);
        assertThat(clickstream.getKclStage("page-counts").getImageTarball()).isEmpty();
        JsonNode manifest = new ObjectMapper()
                .readTree(dir.resolve("cdk.out")
                        .resolve("sluice-clickstream.assets.json")
                        .toFile());
        assertThat(manifest.path("dockerImages").size()).isZero();
    }

    @Test
    void aTarballThatDoesNotExistIsRefusedWithItsPath() throws IOException {
        Path missing = dir.resolve("no-such-image.tar");
        App app = app(Map.of(KclStage.IMAGE_TARBALL_CONTEXT, missing.toString()));
        assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate(), new LinkedHashMap<>()))
                .isInstanceOf(SynthesisRefusedException.class)
                .hasMessage("the worker image tarball " + missing + " (context sluice:kclImageTarball) does not exist:"
                        + " build it with ./mvnw -B -pl functions/kcl -am package -DskipTests -Pworker-image, or point"
                        + " sluice:kclImageTarball at the arm64 tarball");
    }

    private static List<JsonNode> containerImages(JsonNode template) {
        List<JsonNode> images = new ArrayList<>();
        template.get("Resources").forEach(resource -> {
            if (resource.get("Type").asText().equals("AWS::ECS::TaskDefinition")) {
                resource.at("/Properties/ContainerDefinitions")
                        .forEach(container -> images.add(container.get("Image")));
            }
        });
        return images;
    }

    /** The IAM policies attached to the stage's task execution role, as JSON text. */
    private static String executionRolePolicies(JsonNode template, KclStage stage) {
        String role = TestApps.logicalId(stage.getTaskDefinition().getExecutionRole());
        StringBuilder policies = new StringBuilder();
        template.get("Resources").forEach(resource -> {
            if (resource.get("Type").asText().equals("AWS::IAM::Policy")
                    && resource.at("/Properties/Roles").toString().contains("\"" + role + "\"")) {
                policies.append(resource.at("/Properties/PolicyDocument"));
            }
        });
        return policies.toString();
    }

    @Test
    void anImageByTagOrOutsideEcrIsRefused() throws IOException {
        String digest = "@sha256:" + "ab".repeat(32);
        for (String image : List.of(
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl:1.0",
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl:latest",
                "docker.io/library/sluice-kcl" + digest,
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl@sha256:abc",
                "sluice-kcl:set-context-sluice-kclImage-before-deploy")) {
            App app = app(Map.of(KclStage.IMAGE_CONTEXT, image));
            assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate()))
                    .as(image)
                    .isInstanceOf(SynthesisRefusedException.class)
                    .hasMessage("context sluice:kclImage must be an ECR image by digest,"
                            + " <account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<64 hex digits> (a tag can"
                            + " be moved; the digest is the image that was built and checked), not '" + image + "'");
        }
    }

    @Test
    void ecrImagesByDigestAreAccepted() {
        String digest = "@sha256:" + "0f".repeat(32);
        assertThat(List.of(
                        "123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl" + digest,
                        "123456789012.dkr.ecr.us-gov-west-1.amazonaws.com/team/sluice-kcl" + digest,
                        "123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/cdk-hnb659fds-container-assets-123456789012-cn-north-1"
                                + digest))
                .allMatch(image -> KclStage.IMAGE_BY_DIGEST.matcher(image).matches());
    }

    @Test
    void theLocalStacksTemplateNeedsNoImageAndGrantsNoPull() throws IOException {
        PipelineDefinition clickstream = TestApps.loader()
                .loadAll(SluiceRoot.locate().resolve("pipelines"))
                .stream()
                .filter(definition -> definition.pipeline().equals("clickstream"))
                .findFirst()
                .orElseThrow();
        String template = InProcessSynth.template(clickstream);
        JsonNode resources = new ObjectMapper().readTree(template).get("Resources");
        List<String> images = new ArrayList<>();
        resources.forEach(resource -> {
            if (resource.get("Type").asText().equals("AWS::ECS::TaskDefinition")) {
                resource.at("/Properties/ContainerDefinitions")
                        .forEach(container -> images.add(container.get("Image").asText()));
            }
        });
        assertThat(images).containsExactly(KclStage.LOCAL_IMAGE);
        assertThat(template).doesNotContain("ecr:");
    }

    /**
     * What {@code cdk synth} / {@code cdk deploy} (and {@code ./sluice synth}) show without an image: the
     * app's JVM prints the one line on stderr, synthesizes the other stacks, ends with its RESULT line
     * ({@code refused=1}) and exits 0, so {@code cdk deploy sluice-payments} deploys.
     */
    @Test
    void theAppRefusesTheKclStackAloneAndExitsZero() throws Exception {
        Path outdir = dir.resolve("cdk.out");
        // what an earlier synthesis with an image left: removed, never shown as this synthesis' template
        Files.createDirectories(outdir);
        Files.writeString(outdir.resolve("sluice-clickstream.template.json"), "{}");
        Process process = runApp(outdir, dir.resolve("no-tarball-here.tar"));
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
        List<String> stderr = nonBlank(dir.resolve("stderr"));
        List<String> stdout = nonBlank(dir.resolve("stdout"));
        assertThat(process.exitValue()).as("stderr %s", stderr).isZero();
        assertThat(stderr).containsExactly("sluice: " + CLICKSTREAM_REFUSED);
        assertThat(stdout.get(stdout.size() - 1))
                .startsWith("RESULT stacks=")
                .contains(" nag_errors=0 ")
                .endsWith(" refused=1");
        assertThat(outdir.resolve("sluice-payments.template.json")).exists();
        assertThat(outdir.resolve("sluice-clickstream.template.json")).doesNotExist();
    }

    /**
     * The default tarball ({@code -Dsluice.kclImageTarball}, which the Maven build sets) is taken when
     * the file exists, never when it does not; {@code SLUICE_KCL_IMAGE} defaults the digest.
     */
    @Test
    void theAppTakesTheDefaultTarballOnlyWhenItExists() throws IOException {
        Path tarball = tarball();
        Properties properties = new Properties();
        properties.setProperty(SluiceApp.KCL_IMAGE_TARBALL_PROPERTY, tarball.toString());
        assertThat(SluiceApp.defaultContext(properties, Map.of()))
                .containsExactly(Map.entry(KclStage.IMAGE_TARBALL_CONTEXT, tarball.toString()));

        properties.setProperty(
                SluiceApp.KCL_IMAGE_TARBALL_PROPERTY,
                dir.resolve("not-built-yet.tar").toString());
        assertThat(SluiceApp.defaultContext(properties, Map.of())).isEmpty();

        properties.setProperty(SluiceApp.KCL_IMAGE_TARBALL_PROPERTY, "");
        assertThat(SluiceApp.defaultContext(properties, Map.of(SluiceApp.KCL_IMAGE_ENVIRONMENT, TestApps.KCL_IMAGE)))
                .containsExactly(Map.entry(KclStage.IMAGE_CONTEXT, TestApps.KCL_IMAGE));
    }

    private Process runApp(Path outdir, Path tarball) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-D" + SluiceRoot.PROPERTY + "=" + SluiceRoot.locate(),
                "-D" + SluiceApp.LAMBDA_ARTIFACT_PROPERTY + "=" + TestApps.lambdaZip(dir),
                "-D" + SluiceApp.KCL_IMAGE_TARBALL_PROPERTY + "=" + tarball,
                "-D" + SluiceApp.OUTDIR_PROPERTY + "=" + outdir,
                SluiceApp.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(dir.resolve("stderr").toFile())
                .redirectOutput(dir.resolve("stdout").toFile());
        builder.environment().remove(SluiceApp.KCL_IMAGE_ENVIRONMENT);
        builder.environment().remove("CDK_OUTDIR");
        builder.environment().remove("CDK_CONTEXT_JSON");
        builder.environment().put("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20");
        return builder.start();
    }

    private static List<String> nonBlank(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .filter(line -> !line.isBlank())
                .toList();
    }
}
