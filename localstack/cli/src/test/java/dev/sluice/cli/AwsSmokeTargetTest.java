package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.core.definition.Persona;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.local.LocalDefinitions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudformation.CloudFormationClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * The wiring of {@code ./sluice smoke --aws} without an AWS account: the real CloudFormation and
 * STS clients of the SDK against a tiny HTTP stub that answers {@code DescribeStacks} with a
 * deployed stack's outputs and {@code AssumeRole} with session credentials, and records what it
 * was asked.
 */
class AwsSmokeTargetTest {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final String ACCOUNT = "111122223333";
    private static final Region REGION = Region.EU_WEST_1;

    private HttpServer stub;
    private final List<Map<String, String>> requests = Collections.synchronizedList(new ArrayList<>());
    private volatile String describeStacksAnswer;
    private volatile int describeStacksStatus = 200;
    private volatile int assumeRoleStatus = 200;

    @BeforeEach
    void startStub() throws IOException {
        stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/", exchange -> {
            Map<String, String> form =
                    form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            requests.add(form);
            String action = form.getOrDefault("Action", "");
            int status;
            String body;
            if (action.equals("DescribeStacks")) {
                status = describeStacksStatus;
                body = describeStacksAnswer;
            } else if (action.equals("AssumeRole") && assumeRoleStatus == 200) {
                status = 200;
                body = assumeRoleAnswer(form.get("RoleSessionName"));
            } else {
                status = 403;
                body = "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type>"
                        + "<Code>AccessDenied</Code><Message>User: arn:aws:iam::" + ACCOUNT + ":user/dev is not"
                        + " authorized to perform: sts:AssumeRole on resource: " + form.get("RoleArn")
                        + "</Message></Error><RequestId>r-1</RequestId></ErrorResponse>";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/xml");
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        stub.start();
        describeStacksAnswer = describeStacks(outputs());
    }

    @AfterEach
    void stopStub() {
        stub.stop(0);
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(
                        URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    private static String roleArn(String persona) {
        return "arn:aws:iam::" + ACCOUNT + ":role/sluice-payments-Personas" + persona + "-AbC123";
    }

    /** The outputs of a deployed payments stack, as SmokeOutputs and Observability declare them. */
    private static Map<String, String> outputs() {
        Map<String, String> outputs = new LinkedHashMap<>();
        outputs.put("PersonaRoleAdmin", roleArn("Admin"));
        outputs.put("PersonaRoleSourceOperator", roleArn("SourceOperator"));
        outputs.put("PersonaRoleAnalyst", roleArn("Analyst"));
        outputs.put("StreamPaymentsRaw", "sluice-payments-StreamsPaymentsRaw-Xy12");
        outputs.put("TablePaymentsById", "sluice-payments-TablesPaymentsById-Q9");
        outputs.put("QueueUrlPaymentsDlq", "https://sqs.eu-west-1.amazonaws.com/" + ACCOUNT + "/sluice-payments-dlq");
        outputs.put("LakeBucket", "sluice-payments-lakebucket-1a2b");
        outputs.put("DashboardName", "sluice-payments");
        return outputs;
    }

    private static String describeStacks(Map<String, String> outputs) {
        StringBuilder members = new StringBuilder();
        outputs.forEach((key, value) -> members.append("<member><OutputKey>")
                .append(key)
                .append("</OutputKey><OutputValue>")
                .append(value)
                .append("</OutputValue></member>"));
        return "<DescribeStacksResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\">"
                + "<DescribeStacksResult><Stacks><member><StackName>sluice-payments</StackName>"
                + "<StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-12-01T00:00:00Z</CreationTime>"
                + "<Outputs>" + members + "</Outputs></member></Stacks></DescribeStacksResult>"
                + "<ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeStacksResponse>";
    }

    private static String assumeRoleAnswer(String session) {
        return "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>"
                + "<Credentials><AccessKeyId>ASIA-" + session
                + "</AccessKeyId><SecretAccessKey>secret</SecretAccessKey>"
                + "<SessionToken>token-" + session + "</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration>"
                + "</Credentials><AssumedRoleUser><AssumedRoleId>AROAEXAMPLE:" + session + "</AssumedRoleId>"
                + "<Arn>arn:aws:sts::" + ACCOUNT + ":assumed-role/x/" + session + "</Arn></AssumedRoleUser>"
                + "</AssumeRoleResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata>"
                + "</AssumeRoleResponse>";
    }

    private AwsSmokeTarget target() {
        URI endpoint = URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
        StaticCredentialsProvider caller =
                StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIACALLER", "caller-secret"));
        PipelineDefinition payments = LocalDefinitions.loader(ROOT).load(ROOT.resolve("pipelines/payments.yaml"));
        return new AwsSmokeTarget(
                payments,
                CloudFormationClient.builder()
                        .region(REGION)
                        .credentialsProvider(caller)
                        .endpointOverride(endpoint)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                StsClient.builder()
                        .region(REGION)
                        .credentialsProvider(caller)
                        .endpointOverride(endpoint)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                REGION);
    }

    @Test
    void eachPersonaAssumesTheRoleNamedByItsStackOutput() {
        try (AwsSmokeTarget target = target()) {
            var credentials = target.credentials(Persona.SOURCE_OPERATOR).resolveCredentials();

            assertThat(requests.get(0))
                    .containsEntry("Action", "DescribeStacks")
                    .containsEntry("StackName", "sluice-payments");
            Map<String, String> assume = requests.get(requests.size() - 1);
            assertThat(assume)
                    .containsEntry("Action", "AssumeRole")
                    .containsEntry("RoleArn", roleArn("SourceOperator"))
                    .containsEntry("RoleSessionName", "sluice-smoke-source-operator");
            assertThat(credentials).isInstanceOf(AwsSessionCredentials.class);
            assertThat(credentials.accessKeyId()).isEqualTo("ASIA-sluice-smoke-source-operator");
            assertThat(((AwsSessionCredentials) credentials).sessionToken())
                    .isEqualTo("token-sluice-smoke-source-operator");

            target.credentials(Persona.ANALYST);
            assertThat(requests.get(requests.size() - 1)).containsEntry("RoleArn", roleArn("Analyst"));
            long assumes = requests.stream()
                    .filter(r -> "AssumeRole".equals(r.get("Action")))
                    .count();
            target.credentials(Persona.ANALYST); // assumed once per persona
            assertThat(requests.stream()
                            .filter(r -> "AssumeRole".equals(r.get("Action")))
                            .count())
                    .isEqualTo(assumes);
        }
    }

    @Test
    void physicalNamesAndTheDashboardUrlComeFromTheStackOutputs() {
        try (AwsSmokeTarget target = target()) {
            assertThat(target.stream("payments-raw")).isEqualTo("sluice-payments-StreamsPaymentsRaw-Xy12");
            assertThat(target.table("payments-by-id")).isEqualTo("sluice-payments-TablesPaymentsById-Q9");
            assertThat(target.queueUrl("payments-dlq"))
                    .isEqualTo("https://sqs.eu-west-1.amazonaws.com/" + ACCOUNT + "/sluice-payments-dlq");
            assertThat(target.lakeBucket()).isEqualTo("sluice-payments-lakebucket-1a2b");
            assertThat(target.dashboard())
                    .isEqualTo("https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1"
                            + "#dashboards/dashboard/sluice-payments");
            assertThat(target.where()).isEqualTo("AWS, stack sluice-payments in eu-west-1");
        }
    }

    @Test
    void aStackDeployedWithoutTheOutputIsReportedInOneLineNamingIt() {
        Map<String, String> old = outputs();
        old.remove("PersonaRoleViewer");
        old.remove("TableSpendPerCurrencyHourly");
        describeStacksAnswer = describeStacks(old);
        try (AwsSmokeTarget target = target()) {
            assertThatThrownBy(() -> target.table("spend-per-currency-hourly"))
                    .hasMessage("the stack sluice-payments has no output TableSpendPerCurrencyHourly: it was deployed"
                            + " before ./sluice smoke existed; deploy it again (npx cdk deploy sluice-payments)");
            assertThatThrownBy(() -> target.credentials(Persona.VIEWER))
                    .hasMessageContaining("has no output PersonaRoleViewer");
        }
    }

    @Test
    void aMissingStackSaysToDeployItFirst() {
        describeStacksStatus = 400;
        describeStacksAnswer = "<ErrorResponse xmlns=\"http://cloudformation.amazonaws.com/doc/2010-05-15/\"><Error>"
                + "<Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id sluice-payments does not"
                + " exist</Message></Error><RequestId>r-3</RequestId></ErrorResponse>";

        assertThatThrownBy(this::target)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("cannot read the stack sluice-payments in eu-west-1 (Stack with id"
                        + " sluice-payments does not exist")
                .hasMessageEndingWith("deploy it first (cd infra-cdk && npx cdk deploy sluice-payments) with the same"
                        + " credentials and region")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aRefusedAssumeRoleStopsTheRunWithOneLineNamingThePersonaAndItsRole() {
        assumeRoleStatus = 403;
        try (AwsSmokeTarget target = target()) {
            assertThatThrownBy(() -> target.credentials(Persona.ADMIN))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(
                            "cannot assume the admin persona role " + roleArn("Admin") + ": User: arn:aws:iam::"
                                    + ACCOUNT + ":user/dev is not authorized to perform: sts:AssumeRole")
                    .hasMessageEndingWith("(admin requires MFA or the session tag: see docs/operations.md#access)")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }
}
