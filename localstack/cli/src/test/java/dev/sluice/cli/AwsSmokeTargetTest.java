package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * The wiring of {@code ./sluice smoke --aws} without an AWS account: the real CloudFormation and
 * STS clients of the SDK against a tiny HTTP stub that answers {@code DescribeStacks} with a
 * deployed stack's outputs, {@code AssumeRole} with session credentials and CloudWatch Logs'
 * {@code FilterLogEvents} with recorded REPORT lines ({@code lambda-report/}), and records what it
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
    private volatile int logsStatus = 200;
    /** FilterLogEvents answers by log group: the JSON arrays of events of each page. */
    private final Map<String, List<String>> logPages = new java.util.concurrent.ConcurrentHashMap<>();
    /** When set, what FilterLogEvents answers from its second request on (a line that arrived late). */
    private volatile List<String> logPagesFromTheSecondLook;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant DEPLOYED = Instant.parse("2026-12-01T09:30:00Z");
    private static final String VALIDATE_LOGS = "/sluice/payments/validate";

    @BeforeEach
    void startStub() throws IOException {
        stub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        stub.createContext("/", exchange -> {
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            if (target != null && target.endsWith(".FilterLogEvents")) {
                filterLogEvents(exchange);
                return;
            }
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

    /**
     * Answers {@code FilterLogEvents} (CloudWatch Logs' JSON protocol) with the next of {@link
     * #logPages} for the asked log group (or {@link #logPagesFromTheSecondLook}), recording the request's JSON fields and the access key it
     * was signed with.
     */
    private void filterLogEvents(HttpExchange exchange) throws IOException {
        JsonNode request = JSON.readTree(exchange.getRequestBody());
        Map<String, String> recorded = new LinkedHashMap<>();
        request.fields()
                .forEachRemaining(f -> recorded.put(f.getKey(), f.getValue().asText()));
        recorded.put("Action", "FilterLogEvents");
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        recorded.put("AccessKey", authorization.replaceAll(".*Credential=([^/]+)/.*", "$1"));
        requests.add(recorded);
        int status;
        String body;
        if (logsStatus != 200) {
            status = logsStatus;
            body = "{\"__type\":\"AccessDeniedException\",\"message\":\"User is not authorized to perform:"
                    + " logs:FilterLogEvents\"}";
        } else {
            List<String> pages =
                    logPagesFromTheSecondLook != null && filterRequests().size() > 1
                            ? logPagesFromTheSecondLook
                            : logPages.getOrDefault(request.path("logGroupName").asText(), List.of("[]"));
            int page = request.hasNonNull("nextToken")
                    ? Integer.parseInt(request.get("nextToken").asText())
                    : 0;
            status = 200;
            body = "{\"events\":" + pages.get(page) + ",\"searchedLogStreams\":[]"
                    + (page + 1 < pages.size() ? ",\"nextToken\":\"" + (page + 1) + "\"" : "") + "}";
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    /** One FilteredLogEvent as JSON. */
    private static String event(String stream, Instant at, String message) {
        ObjectNode event = JSON.createObjectNode();
        event.put("logStreamName", stream);
        event.put("timestamp", at.toEpochMilli());
        event.put("message", message);
        event.put("ingestionTime", at.toEpochMilli() + 900);
        event.put("eventId", Long.toString(at.toEpochMilli()));
        return event.toString();
    }

    private static String fixture(String name) {
        try (var in = AwsSmokeTargetTest.class.getResourceAsStream("/lambda-report/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
        outputs.put("FunctionLogGroupValidate", VALIDATE_LOGS);
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
                + "<StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2026-11-20T00:00:00Z</CreationTime>"
                + "<LastUpdatedTime>" + DEPLOYED + "</LastUpdatedTime>"
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
        return target(Duration.ZERO);
    }

    private AwsSmokeTarget target(Duration restoreWait) {
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
                REGION,
                credentials -> CloudWatchLogsClient.builder()
                        .region(REGION)
                        .credentialsProvider(credentials)
                        .endpointOverride(endpoint)
                        .httpClientBuilder(Apache5HttpClient.builder())
                        .build(),
                restoreWait);
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

    private List<Map<String, String>> filterRequests() {
        synchronized (requests) {
            return requests.stream()
                    .filter(r -> "FilterLogEvents".equals(r.get("Action")))
                    .toList();
        }
    }

    @Test
    void theFirstRestoreSinceTheDeployIsReadFromTheStageFunctionsLogGroupAsAdmin() {
        String restore = fixture("snapstart-restore.txt");
        String later = fixture("snapstart-restore-xray-console.txt");
        // the answer interleaves log streams: the earliest restore is on the second page
        logPages.put(
                VALIDATE_LOGS,
                List.of(
                        "[" + event("2026/12/01/[12]bb", DEPLOYED.plusSeconds(140), later) + ","
                                + event(
                                        "2026/12/01/[12]bb",
                                        DEPLOYED.plusSeconds(141),
                                        "a log line quoting" + " \"REPORT RequestId\" and \"Restore Duration\"")
                                + "]",
                        "[" + event("2026/12/01/[12]aa", DEPLOYED.plusSeconds(95), restore) + "]"));
        try (AwsSmokeTarget target = target()) {
            List<StageRestore> restores = target.restores();

            assertThat(restores).hasSize(1);
            StageRestore validate = restores.get(0);
            assertThat(validate.stage()).isEqualTo("validate");
            assertThat(validate.restoreMs()).hasValue(412.30);
            assertThat(validate.report().orElseThrow().billedRestoreDurationMs())
                    .hasValue(169);
            assertThat(validate.at()).isEqualTo(DEPLOYED.plusSeconds(95));
            assertThat(validate.version()).hasValue("12");
            assertThat(validate.line())
                    .startsWith("restore: validate 412.30 ms (billed 169 ms), first invocation after the deploy at "
                            + DEPLOYED + ": logged 2026-12-01T09:31:35Z by version 12");
            assertThat(StageRestore.resultFields(restores)).isEqualTo("restore_ms=412.30 restore_ms_validate=412.30");

            List<Map<String, String>> asked = filterRequests();
            assertThat(asked).hasSize(2); // both pages
            assertThat(asked.get(0))
                    .containsEntry("logGroupName", VALIDATE_LOGS)
                    .containsEntry("startTime", Long.toString(DEPLOYED.toEpochMilli()))
                    .containsEntry("filterPattern", "\"REPORT RequestId\" \"Restore Duration\"")
                    .containsEntry("AccessKey", "ASIA-sluice-smoke-admin");
            assertThat(asked.get(1)).containsEntry("nextToken", "1");
        }
    }

    @Test
    void noRestoreLoggedYetIsSaidAndTheFigureIsNotApplicable() {
        try (AwsSmokeTarget target = target()) {
            List<StageRestore> restores = target.restores();

            assertThat(restores.get(0).restoreMs()).isEmpty();
            assertThat(restores.get(0).line())
                    .startsWith("restore: validate no restore seen yet: no REPORT line with a Restore Duration in "
                            + VALIDATE_LOGS + " since the deploy at " + DEPLOYED);
            assertThat(StageRestore.resultFields(restores)).isEqualTo("restore_ms=n/a restore_ms_validate=n/a");
        }
    }

    @Test
    void aRestoreLoggedAfterTheFirstLookIsFoundWithinTheWait() {
        logPages.put(VALIDATE_LOGS, List.of("[]"));
        logPagesFromTheSecondLook = List.of(
                "[" + event("2026/12/01/[12]aa", DEPLOYED.plusSeconds(95), fixture("snapstart-restore.txt")) + "]");
        URI endpoint = URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
        try (CloudWatchLogsClient logs = CloudWatchLogsClient.builder()
                .region(REGION)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIAADMIN", "admin-secret")))
                .endpointOverride(endpoint)
                .httpClientBuilder(Apache5HttpClient.builder())
                .build()) {
            RestoreLookup lookup =
                    new RestoreLookup(logs, Duration.ofSeconds(10), Duration.ofMillis(50), Clock.systemUTC());

            List<StageRestore> restores = lookup.find(Map.of("validate", VALIDATE_LOGS), DEPLOYED);

            assertThat(restores.get(0).restoreMs()).hasValue(412.30);
            assertThat(filterRequests()).hasSize(2);
        }
    }

    @Test
    void aRefusedFilterLogEventsIsANoteNotAFailure() {
        logsStatus = 400;
        try (AwsSmokeTarget target = target()) {
            StageRestore validate = target.restores().get(0);

            assertThat(validate.restoreMs()).isEmpty();
            assertThat(validate.line())
                    .startsWith("restore: validate n/a: cannot read " + VALIDATE_LOGS + " (FilterLogEvents as admin:"
                            + " User is not authorized to perform: logs:FilterLogEvents");
        }
    }

    @Test
    void aStackDeployedBeforeTheLogGroupOutputsSaysToDeployAgainWithoutAskingTheLogs() {
        Map<String, String> old = outputs();
        old.remove("FunctionLogGroupValidate");
        describeStacksAnswer = describeStacks(old);
        try (AwsSmokeTarget target = target()) {
            StageRestore validate = target.restores().get(0);

            assertThat(validate.line())
                    .isEqualTo("restore: validate n/a: the stack sluice-payments has no output FunctionLogGroupValidate"
                            + " (deployed before the smoke read restores); deploy it again");
            assertThat(filterRequests()).isEmpty();
        }
    }
}
