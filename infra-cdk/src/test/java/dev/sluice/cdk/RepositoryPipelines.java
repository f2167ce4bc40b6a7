package dev.sluice.cdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import software.amazon.awscdk.assertions.Template;

/**
 * The repository's pipelines ({@code pipelines/*.yaml}) synthesized once per test JVM, as {@link
 * SluiceApp#addPipelines} builds them into {@link TestApps#app}, for the test classes that only read them: their
 * stacks and each stack's {@link Template}, taken once right after the stacks were built.
 *
 * <p>Read-only by contract: the app is not handed out, and a test must not add constructs, aspects
 * ({@code NagChecks.apply}) or stacks to these stacks; a test that needs a changed app or definition builds its own
 * app with {@link TestApps#app}. The templates are taken before any test runs, so an assertion on them sees the
 * stacks exactly as {@code addPipelines} left them. {@code Template.fromStack} on these stacks would synthesize
 * the whole app again: use {@link #template} instead.
 */
final class RepositoryPipelines {

    private static RepositoryPipelines shared;

    private final List<PipelineStack> stacks;
    private final Map<String, Template> templates;

    private RepositoryPipelines(List<PipelineStack> stacks, Map<String, Template> templates) {
        this.stacks = stacks;
        this.templates = templates;
    }

    /** The pipelines of this JVM, synthesized on first use. */
    static synchronized RepositoryPipelines get() {
        if (shared == null) {
            shared = synthesize();
        }
        return shared;
    }

    private static RepositoryPipelines synthesize() {
        try {
            Path dir = Files.createTempDirectory("sluice-cdk-repository-pipelines-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            List<PipelineStack> stacks = List.copyOf(SluiceApp.addPipelines(TestApps.app(dir), SluiceRoot.locate()));
            Map<String, Template> templates = new LinkedHashMap<>();
            for (PipelineStack stack : stacks) {
                templates.put(stack.getDefinition().pipeline(), Template.fromStack(stack));
            }
            return new RepositoryPipelines(stacks, Map.copyOf(templates));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every pipeline's stack, in the order {@link SluiceApp#addPipelines} returned them. */
    List<PipelineStack> stacks() {
        return stacks;
    }

    /** The stack of the pipeline named {@code pipeline}. */
    PipelineStack stack(String pipeline) {
        return TestApps.stack(stacks, pipeline);
    }

    /** The template of the pipeline named {@code pipeline}. */
    Template template(String pipeline) {
        Template template = templates.get(pipeline);
        if (template == null) {
            throw new IllegalArgumentException("no pipeline '" + pipeline + "' among " + templates.keySet());
        }
        return template;
    }

    /** The template of one of {@link #stacks()}. */
    Template template(PipelineStack stack) {
        if (!stacks.contains(stack)) {
            throw new IllegalArgumentException(stack.getStackName() + " is not one of the repository's stacks");
        }
        return template(stack.getDefinition().pipeline());
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary folder
        }
    }
}
