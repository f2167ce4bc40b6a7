package dev.sluice.local.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Intrinsic functions resolved to local values. */
class IntrinsicsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CloudFormationTemplate TEMPLATE = CloudFormationTemplate.parse("sluice-test", """
            {"Resources": {
               "Stream1": {"Type": "AWS::Kinesis::Stream"},
               "Key1": {"Type": "AWS::KMS::Key"}
            }}""");
    private static final Intrinsics INTRINSICS = new Intrinsics(
            TEMPLATE,
            Map.of(
                    "Stream1",
                    new LocalResource(
                            "Stream1",
                            "AWS::Kinesis::Stream",
                            "raw-t1",
                            "raw-t1",
                            Map.of("Arn", "arn:aws:kinesis:us-east-1:000000000000:stream/raw-t1"))),
            "us-east-1",
            "000000000000");

    private static String resolve(String json) throws Exception {
        return INTRINSICS.string(JSON.readTree(json), "test");
    }

    @Test
    void refGetAttAndPseudoParametersResolveToLocalValues() throws Exception {
        assertThat(resolve("{\"Ref\": \"Stream1\"}")).isEqualTo("raw-t1");
        assertThat(resolve("{\"Fn::GetAtt\": [\"Stream1\", \"Arn\"]}"))
                .isEqualTo("arn:aws:kinesis:us-east-1:000000000000:stream/raw-t1");
        assertThat(resolve("{\"Fn::GetAtt\": \"Stream1.Arn\"}")).endsWith(":stream/raw-t1");
        assertThat(resolve("{\"Ref\": \"AWS::Region\"}")).isEqualTo("us-east-1");
        assertThat(resolve("{\"Ref\": \"AWS::StackName\"}")).isEqualTo("sluice-test");
    }

    @Test
    void joinSubAndSelectCompose() throws Exception {
        assertThat(resolve("{\"Fn::Join\": [\"/\", [\"a\", {\"Ref\": \"Stream1\"}, {\"Ref\": \"AWS::AccountId\"}]]}"))
                .isEqualTo("a/raw-t1/000000000000");
        assertThat(resolve("{\"Fn::Sub\": \"${Stream1}@${AWS::Region}:${Stream1.Arn}:${!Literal}\"}"))
                .isEqualTo("raw-t1@us-east-1:arn:aws:kinesis:us-east-1:000000000000:stream/raw-t1:${Literal}");
        assertThat(resolve("{\"Fn::Sub\": [\"${Name}-x\", {\"Name\": {\"Ref\": \"Stream1\"}}]}"))
                .isEqualTo("raw-t1-x");
        assertThat(resolve("{\"Fn::Select\": [1, [\"a\", {\"Ref\": \"Stream1\"}]]}"))
                .isEqualTo("raw-t1");
        JsonNode nested = INTRINSICS.resolve(
                JSON.readTree("{\"deadLetterTargetArn\": {\"Fn::GetAtt\": [\"Stream1\", \"Arn\"]}, \"n\": 3}"), "test");
        assertThat(nested.path("deadLetterTargetArn").asText()).endsWith(":stream/raw-t1");
        assertThat(nested.path("n").asInt()).isEqualTo(3);
    }

    @Test
    void whatCannotBeResolvedLocallyFailsWithThePlace() {
        assertThatThrownBy(() -> resolve("{\"Ref\": \"Key1\"}"))
                .hasMessageContaining("test")
                .hasMessageContaining("Key1 (AWS::KMS::Key)");
        assertThatThrownBy(() -> resolve("{\"Ref\": \"Nothing\"}")).hasMessageContaining("no resource of sluice-test");
        assertThatThrownBy(() -> resolve("{\"Fn::GetAtt\": [\"Stream1\", \"StreamArn\"]}"))
                .hasMessageContaining("no attribute StreamArn");
        assertThatThrownBy(() -> resolve("{\"Fn::If\": [\"C\", \"a\", \"b\"]}")).hasMessageContaining("Fn::If");
    }
}
