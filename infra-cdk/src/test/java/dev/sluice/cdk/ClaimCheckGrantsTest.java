package dev.sluice.cdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.definition.EnvironmentNames;
import dev.sluice.core.definition.Persona;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awscdk.App;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.iam.IRole;

/**
 * Dead-letter claim checks: a stage may put objects under its queue's claim-check prefix of the
 * pipeline's bucket and do nothing else there; no persona but admin reaches that prefix; the objects
 * outlive their message by a day.
 */
class ClaimCheckGrantsTest {

    @TempDir
    static Path dir;

    private static PipelineStack payments;
    private static PipelineStack clickstream;

    @BeforeAll
    static void synthesize() throws Exception {
        payments = RepositoryPipelines.get().stack("payments");
        clickstream = RepositoryPipelines.get().stack("clickstream");
    }

    /** The statements of a role that name the claim-check prefix of this queue. */
    private static List<Map<String, Object>> onClaimChecks(Template template, IRole role, String queue) {
        return TemplateQueries.statementsOf(template, role).stream()
                .filter(statement -> TemplateQueries.strings(TemplateQueries.resources(statement)).stream()
                        .anyMatch(s -> s.contains("/sluice-dead-letters/" + queue + "/")))
                .toList();
    }

    @Test
    void lambdaStageMayOnlyPutObjectsUnderItsQueuesClaimCheckPrefix() {
        Template template = RepositoryPipelines.get().template(payments);
        LambdaStage stage = payments.getLambdaStage("validate");

        assertThat(onClaimChecks(template, stage.getFunction().getRole(), "payments-dlq"))
                .singleElement()
                .satisfies(statement -> {
                    assertThat(TemplateQueries.actions(statement)).containsExactly("s3:PutObject");
                    assertThat(TemplateQueries.strings(TemplateQueries.resources(statement)))
                            .contains("/sluice-dead-letters/payments-dlq/*");
                });
        assertThat(TemplateQueries.environment(template, stage.getFunction()))
                .containsKey(EnvironmentNames.LAKE_BUCKET);
    }

    @Test
    void kclStageMayOnlyPutObjectsUnderItsQueuesClaimCheckPrefix() {
        Template template = RepositoryPipelines.get().template(clickstream);
        clickstream.getKclStages().forEach((name, stage) -> {
            String queue = clickstream.getDefinition().stage(name).failure().deadLetterQueue();
            assertThat(onClaimChecks(template, stage.getTaskDefinition().getTaskRole(), queue))
                    .as(name)
                    .singleElement()
                    .satisfies(statement ->
                            assertThat(TemplateQueries.actions(statement)).containsExactly("s3:PutObject"));
        });
        assertThat(clickstream.getKclStages()).isNotEmpty();
    }

    @Test
    void noPersonaButAdminReachesTheClaimChecks() {
        for (PipelineStack stack : List.of(payments, clickstream)) {
            Template template = RepositoryPipelines.get().template(stack);
            for (Persona persona : Persona.values()) {
                if (persona == Persona.ADMIN || stack.getPersonas().getRole(persona) == null) {
                    continue;
                }
                List<String> resources =
                        TemplateQueries.statementsOf(
                                        template, stack.getPersonas().getRole(persona))
                                .stream()
                                .flatMap(statement ->
                                        TemplateQueries.strings(TemplateQueries.resources(statement)).stream())
                                .toList();
                assertThat(resources)
                        .as(stack.getDefinition().pipeline() + " " + persona)
                        .noneMatch(r -> r.contains("sluice-dead-letters"))
                        .doesNotContain("/*");
            }
        }
    }

    @Test
    void claimChecksOutliveTheirMessageByADay() {
        RepositoryPipelines.get()
                .template(payments)
                .hasResourceProperties(
                        "AWS::S3::Bucket",
                        Match.objectLike(Map.of(
                                "LifecycleConfiguration",
                                Map.of(
                                        "Rules",
                                        Match.arrayWith(List.of(Match.objectLike(Map.of(
                                                "Prefix", "sluice-dead-letters/payments-dlq/",
                                                "ExpirationInDays", 15,
                                                "Status", "Enabled"))))))));
    }

    @Test
    void lakePrefixInsideTheClaimCheckFolderIsRefused() throws Exception {
        App other = TestApps.app(Files.createDirectories(dir.resolve("overlap")));
        String yaml = """
                pipeline: overlap
                streams:
                  raw:
                    shards: 1
                    schema: payments.transaction.v1
                lakes:
                  everything:
                    prefix: sluice-dead-letters/raw-dlq/
                queues:
                  raw-dlq: {}
                stages:
                  land:
                    input: raw
                    consumer: lambda
                    sinks:
                      - lake: everything
                    failure:
                      deadLetterQueue: raw-dlq
                """;
        assertThatThrownBy(() -> new PipelineStack(
                        other,
                        "sluice-overlap",
                        new PipelineStackProps(
                                TestApps.loader().parse("overlap.yaml", yaml), SluiceApp.lambdaArtifact(other), null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lake 'everything'")
                .hasMessageContaining("sluice-dead-letters/");
    }
}
