package dev.sluice.cdk;

import dev.sluice.core.definition.PipelineDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.ZipOutputStream;
import software.amazon.awscdk.App;
import software.amazon.awscdk.AppProps;
import software.amazon.awscdk.cxapi.CloudAssembly;

/**
 * Synthesizes a pipeline's stack inside the calling JVM, without an AWS account, a CDK CLI or a
 * prior {@code ./sluice synth}: the local stack ({@code localstack/}) provisions itself from the
 * template this returns. The stack is built exactly as {@link SluiceApp} builds it (same {@link
 * PipelineStack}, default context), except that the Lambda code asset is an empty placeholder zip
 * (the local runner loads the handler classes from its own class path, and the template only holds
 * the asset's hash) and that KCL stages need no worker image ({@link KclStage#LOCAL_WORKERS_CONTEXT}:
 * the local KCL workers run from the class path too). cdk-nag is not applied (it adds metadata only).
 *
 * <p>Templates are cached per definition for the life of the JVM: the first synthesis starts the
 * jsii runtime (a Node.js child process, ≈ 4 s with a warm jsii cache), later ones take ≈ 0.2 s.
 */
public final class InProcessSynth {

    private static final Map<PipelineDefinition, String> TEMPLATES = new ConcurrentHashMap<>();

    private InProcessSynth() {}

    /**
     * The CloudFormation template (JSON) of the stack {@code sluice-<pipeline>} synthesized from the
     * definition.
     */
    public static String template(PipelineDefinition definition) {
        String cached = TEMPLATES.get(definition);
        if (cached != null) {
            return cached;
        }
        synchronized (InProcessSynth.class) { // one synthesis at a time through the jsii runtime
            return TEMPLATES.computeIfAbsent(definition, InProcessSynth::synthesize);
        }
    }

    private static String synthesize(PipelineDefinition definition) {
        Path outdir = null;
        try {
            outdir = Files.createTempDirectory("sluice-synth-");
            Path placeholder = outdir.resolve("placeholder-lambda.zip");
            try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(placeholder))) {
                zip.finish();
            }
            Path assembly = outdir.resolve("cdk.out");
            App app = new App(AppProps.builder()
                    .outdir(assembly.toString())
                    .context(Map.of(KclStage.LOCAL_WORKERS_CONTEXT, true))
                    .build());
            String stackName = SluiceApp.STACK_PREFIX + definition.pipeline();
            new PipelineStack(app, stackName, new PipelineStackProps(definition, placeholder, null));
            CloudAssembly synthesized = app.synth();
            return Files.readString(
                    Path.of(synthesized.getStackByName(stackName).getTemplateFullPath()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot synthesize pipeline " + definition.pipeline(), e);
        } finally {
            delete(outdir);
        }
    }

    private static void delete(Path folder) {
        if (folder == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind is harmless
        }
    }
}
