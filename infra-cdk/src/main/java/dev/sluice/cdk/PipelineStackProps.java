package dev.sluice.cdk;

import dev.sluice.core.definition.PipelineDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import software.amazon.awscdk.StackProps;

/**
 * What a {@link PipelineStack} is built from.
 *
 * @param definition the checked pipeline definition
 * @param lambdaArtifact the Lambda deployment zip ({@code sluice-lambda-<version>-lambda.zip}); must
 *     exist
 * @param stackProps the usual stack settings (environment, description, synthesizer...)
 */
public record PipelineStackProps(PipelineDefinition definition, Path lambdaArtifact, StackProps stackProps) {

    public PipelineStackProps {
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(lambdaArtifact, "lambdaArtifact");
        lambdaArtifact = lambdaArtifact.toAbsolutePath().normalize();
        if (!Files.isRegularFile(lambdaArtifact)) {
            throw new IllegalArgumentException("the Lambda artifact " + lambdaArtifact + " does not exist");
        }
        stackProps = stackProps == null ? StackProps.builder().build() : stackProps;
    }
}
