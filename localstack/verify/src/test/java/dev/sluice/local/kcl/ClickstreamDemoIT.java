package dev.sluice.local.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.verify.reconcile.ClickstreamDemo;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The demo's KCL part: clickstream.yaml's {@code page-counts} stage (enrich + aggregate; the
 * pipeline's CEL filter is type-checked when the worker loads the definition) run by a local KCL
 * worker behind the Lambda stage, every human view counted once per page per minute.
 */
@ExtendWith(LocalAwsExtension.class)
class ClickstreamDemoIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));

    @Test
    void pageCountsStageCountsEveryHumanViewOnce(LocalAws aws) {
        // CI runs the demo's KCL part with the template's IAM enforced
        org.assertj.core.api.Assertions.assertThat(aws.iamEnforced())
                .as("the local stack enforces IAM by default")
                .isTrue();
        PipelineDefinition clickstream = new DefinitionLoader(
                        SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/clickstream.yaml"));

        ClickstreamDemo.Result result = ClickstreamDemo.run(aws, clickstream, ROOT, 200, 1, n -> {});

        assertThat(result.bots()).isEqualTo(20);
        assertThat(result.expected()).isEqualTo(180);
        assertThat(result.counted()).isEqualTo(180);
        assertThat(result.lost()).isZero();
        assertThat(result.duplicates()).isZero();
        assertThat(result.reconciled()).isTrue();
    }
}
