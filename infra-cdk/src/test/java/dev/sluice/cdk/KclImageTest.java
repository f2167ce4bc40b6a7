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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;

/**
 * The KCL worker image a {@code consumer: kcl} stage runs: an ECR image by digest in {@value
 * KclStage#IMAGE_CONTEXT}, or synthesis stops with one line saying how to build and push it — no
 * placeholder is deployed. Only the local stack's in-process template goes without one.
 */
class KclImageTest {

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

    @Test
    void withoutAnImageSynthesisStopsWithOneLineSayingHowToBuildAndPushIt() throws IOException {
        App app = app(Map.of());
        assertThatThrownBy(() -> SluiceApp.addPipelines(app, SluiceRoot.locate()))
                .isInstanceOf(SynthesisRefusedException.class)
                .hasMessageStartingWith("pipeline 'clickstream', stage 'page-counts' (consumer: kcl) has no worker"
                        + " image (context sluice:kclImage): build and push the worker image with ./mvnw -B -pl"
                        + " functions/kcl -am package -DskipTests -Pworker-image,worker-image-push")
                .hasMessageContaining(
                        "-c sluice:kclImage=<account>.dkr.ecr.<region>.amazonaws.com/<repository>" + "@sha256:<digest>")
                .hasMessageContaining("docs/operations.md")
                .hasMessageNotContaining("\n");
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
     * What {@code cdk synth} / {@code cdk deploy} (and {@code ./sluice synth}) show: the app's JVM
     * exits 1 with the one line on stderr, no stack trace, and writes no assembly.
     */
    @Test
    void theAppExitsWithThatLineAloneWhenTheImageIsMissing() throws Exception {
        Path outdir = dir.resolve("cdk.out");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "-D" + SluiceRoot.PROPERTY + "=" + SluiceRoot.locate(),
                "-D" + SluiceApp.LAMBDA_ARTIFACT_PROPERTY + "=" + TestApps.lambdaZip(dir),
                "-D" + SluiceApp.OUTDIR_PROPERTY + "=" + outdir,
                SluiceApp.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(dir.resolve("stderr").toFile())
                .redirectOutput(dir.resolve("stdout").toFile());
        builder.environment().remove(SluiceApp.KCL_IMAGE_ENVIRONMENT);
        builder.environment().remove("CDK_OUTDIR");
        builder.environment().remove("CDK_CONTEXT_JSON");
        builder.environment().put("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20");
        Process process = builder.start();
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
        List<String> stderr = Files.readAllLines(dir.resolve("stderr"), StandardCharsets.UTF_8).stream()
                .filter(line -> !line.isBlank())
                .toList();
        assertThat(process.exitValue()).isEqualTo(1);
        assertThat(stderr)
                .containsExactly("sluice: pipeline 'clickstream', stage 'page-counts' (consumer: kcl) has no worker"
                        + " image (context sluice:kclImage): " + KclStage.HOW_TO_BUILD);
        assertThat(Files.readString(dir.resolve("stdout"))).doesNotContain("RESULT");
        assertThat(outdir.resolve("sluice-clickstream.template.json")).doesNotExist();
    }
}
