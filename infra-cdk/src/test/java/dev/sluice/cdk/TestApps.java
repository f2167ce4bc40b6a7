package dev.sluice.cdk;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.schema.SchemaCatalog;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.Stack;
import software.constructs.IConstruct;

/** Apps for tests: synthesized into a temporary folder, with a small stand-in Lambda zip. */
final class TestApps {

    private TestApps() {}

    /** A KCL worker image by digest, as {@code -c sluice:kclImage=...} names the pushed image. */
    static final String KCL_IMAGE = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/sluice-kcl@sha256:"
            + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /** A small zip standing in for the Lambda deployment artifact, which tests do not build. */
    static Path lambdaZip(Path dir) throws IOException {
        Path zip = dir.resolve("sluice-lambda-test-lambda.zip");
        try (OutputStream out = Files.newOutputStream(zip);
                ZipOutputStream entries = new ZipOutputStream(out)) {
            entries.putNextEntry(new ZipEntry("dev/sluice/lambda/README.txt"));
            entries.write("stand-in for the Lambda artifact in infra-cdk tests".getBytes(StandardCharsets.UTF_8));
            entries.closeEntry();
        }
        return zip;
    }

    /** The stack of the pipeline named {@code pipeline} among those the app synthesized. */
    static PipelineStack stack(List<PipelineStack> stacks, String pipeline) {
        return stacks.stream()
                .filter(s -> s.getDefinition().pipeline().equals(pipeline))
                .findFirst()
                .orElseThrow();
    }

    /**
     * An app writing into {@code dir}/cdk.out whose {@code sluice:lambdaArtifact} is a fresh zip in {@code dir}
     * and whose {@code sluice:kclImage} is {@link #KCL_IMAGE}.
     */
    static App app(Path dir) throws IOException {
        return new App(AppProps.builder()
                .outdir(dir.resolve("cdk.out").toString())
                .context(Map.of(
                        SluiceApp.LAMBDA_ARTIFACT_CONTEXT,
                        lambdaZip(dir).toString(),
                        KclStage.IMAGE_CONTEXT,
                        KCL_IMAGE))
                .build());
    }

    /** The repository's schemas and loader. */
    static DefinitionLoader loader() {
        return new DefinitionLoader(
                SchemaCatalog.fromDirectory(SluiceRoot.locate().resolve("schemas"), new ObjectMapper()));
    }

    /** The CloudFormation logical id of a construct's default child (its L1 resource). */
    static String logicalId(IConstruct construct) {
        return Stack.of(construct).getLogicalId((CfnElement) construct.getNode().getDefaultChild());
    }

    /** {@code {"Fn::GetAtt": [logicalId, attribute]}}. */
    static Map<String, Object> getAtt(IConstruct construct, String attribute) {
        return Map.of("Fn::GetAtt", java.util.List.of(logicalId(construct), attribute));
    }

    /** {@code {"Ref": logicalId}}. */
    static Map<String, Object> ref(IConstruct construct) {
        return Map.of("Ref", logicalId(construct));
    }
}
