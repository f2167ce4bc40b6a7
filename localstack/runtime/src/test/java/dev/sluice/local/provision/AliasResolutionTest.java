package dev.sluice.local.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.local.template.CloudFormationTemplate;
import dev.sluice.local.template.PhysicalNames;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An event-source mapping whose {@code FunctionName} is an alias or a version (SnapStart runs
 * published versions only) runs the function they resolve to, as Lambda resolves them; an alias or
 * version the template does not have is refused, as Lambda refuses it.
 */
class AliasResolutionTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final ResourceNames NAMES = new ResourceNames("t2");
    private static final String SQS = "http://127.0.0.1:9/000000000000/";
    /** CloudFormation's name for the unnamed function {@code Fn1} of stack {@code sluice-test} (per test). */
    private static final String FUNCTION = PhysicalNames.generated(NAMES.name("sluice-test"), "Fn1", 64);

    private static final String ARN = "arn:aws:lambda:us-east-1:000000000000:function:" + FUNCTION;

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .loadAll(ROOT.resolve("pipelines")).stream()
                        .filter(p -> p.pipeline().equals("payments"))
                        .findFirst()
                        .orElseThrow();
    }

    /** A function, its version, the alias {@code live} on {@code aliasVersion}, and a mapping on {@code target}. */
    private static Provisioner.Plan plan(String aliasVersion, String target) {
        CloudFormationTemplate template =
                CloudFormationTemplate.parse("sluice-test", """
                {"Resources": {
                   "S1": {"Type": "AWS::Kinesis::Stream", "Properties": {"ShardCount": 1}},
                   "Fn1": {"Type": "AWS::Lambda::Function", "Properties": {
                      "Handler": "x.Handler::handleRequest", "Environment": {"Variables": {"SLUICE_STAGE": "validate"}}}},
                   "Fn1Version": {"Type": "AWS::Lambda::Version", "Properties": {"FunctionName": {"Ref": "Fn1"}}},
                   "Fn1Alias": {"Type": "AWS::Lambda::Alias", "Properties": {
                      "Name": "live", "FunctionName": {"Ref": "Fn1"}, "FunctionVersion": %s}},
                   "Esm1": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                      "FunctionName": %s, "EventSourceArn": {"Fn::GetAtt": ["S1", "Arn"]},
                      "FunctionResponseTypes": ["ReportBatchItemFailures"]}}
                }}""".formatted(aliasVersion, target));
        return Provisioner.plan(payments(), template, NAMES, "us-east-1", "000000000000", q -> SQS + q);
    }

    private static final String VERSION = "{\"Fn::GetAtt\": [\"Fn1Version\", \"Version\"]}";

    @Test
    void anUnnamedFunctionIsNamedAsCloudFormationNamesIt() {
        assertThat(FUNCTION).matches("sluice-test-t2-Fn1-[A-Z0-9]{12}");
        assertThat(plan(VERSION, "{\"Ref\": \"Fn1\"}")
                        .resources()
                        .functions()
                        .get("validate")
                        .functionName())
                .isEqualTo(FUNCTION);
    }

    @Test
    void aMappingOnTheAliasArnRunsTheAliasedFunction() {
        Provisioner.Plan plan = plan(VERSION, "{\"Ref\": \"Fn1Alias\"}");
        assertThat(plan.resources().mappings()).containsKey("validate");
        assertThat(plan.resources().mappings().get("validate").functionName()).isEqualTo(FUNCTION);
        assertThat(plan.resources().provisioned().get("Fn1Alias").ref()).isEqualTo(ARN + ":live");
        assertThat(plan.resources().provisioned().get("Fn1Version").ref()).isEqualTo(ARN + ":1");
    }

    @Test
    void aMappingOnTheQualifiedNameOrTheVersionArnRunsTheFunction() {
        // the form the CDK writes by default: the function's name, a colon and the alias's name
        Provisioner.Plan byName = plan(VERSION, "{\"Fn::Join\": [\"\", [{\"Ref\": \"Fn1\"}, \":live\"]]}");
        assertThat(byName.resources().mappings().get("validate").functionName()).isEqualTo(FUNCTION);
        Provisioner.Plan byVersion = plan(VERSION, "{\"Ref\": \"Fn1Version\"}");
        assertThat(byVersion.resources().mappings().get("validate").functionName())
                .isEqualTo(FUNCTION);
    }

    @Test
    void aMappingOnAnAliasTheFunctionDoesNotHaveIsRefused() {
        assertThatThrownBy(() -> plan(VERSION, "\"" + ARN + ":canary\""))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Esm1")
                .hasMessageContaining("has no alias canary");
        assertThatThrownBy(() -> plan(VERSION, "\"" + FUNCTION + ":7\""))
                .hasMessageContaining("has no published version 7");
        assertThatThrownBy(
                        () -> plan(VERSION, "\"arn:aws:lambda:eu-west-1:000000000000:function:" + FUNCTION + ":live\""))
                .hasMessageContaining("another region or account");
    }

    @Test
    void anAliasOfAVersionThatIsNotPublishedIsRefused() {
        assertThatThrownBy(() -> plan("\"3\"", "{\"Ref\": \"Fn1Alias\"}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Fn1Alias")
                .hasMessageContaining("version 3 of function " + FUNCTION + " is not published");
    }
}
