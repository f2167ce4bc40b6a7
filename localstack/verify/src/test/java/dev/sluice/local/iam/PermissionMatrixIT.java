package dev.sluice.local.iam;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.Classification;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.definition.SinkDefinition;
import dev.sluice.core.definition.StageDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.emulators.iam.AccessRequest;
import dev.sluice.emulators.iam.AwsService;
import dev.sluice.emulators.iam.Decision;
import dev.sluice.emulators.iam.KeyUse;
import dev.sluice.local.LocalPipeline;
import dev.sluice.local.provision.PipelineResources;
import dev.sluice.local.template.CloudFormationTemplate;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The permission matrix of every pipeline in {@code pipelines/}, computed by the real policy
 * evaluator over the synthesized template — identity, key and resource policies, the implied KMS
 * calls included — with each expected cell derived from the definition: its {@code access:} block,
 * each stream's classification and each stage's needs (never from a snapshot of today's output).
 * Then mutations of the template that must change a cell (and so fail the build) are tried.
 */
@ExtendWith(LocalAwsExtension.class)
class PermissionMatrixIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final Set<String> READERS = Set.of("analyst", "pipeline-developer");

    static Stream<String> pipelines() {
        return Stream.of("payments", "clickstream");
    }

    private static PipelineDefinition load(String name) {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), new ObjectMapper()))
                .load(ROOT.resolve("pipelines/" + name + ".yaml"));
    }

    /** One cell: who, what, on which resource, what the definition says, what the evaluator says. */
    record Cell(String principal, String what, String resource, boolean expected, boolean actual) {
        boolean mismatch() {
            return expected != actual;
        }

        @Override
        public String toString() {
            return String.format(
                    "%-22s %-32s %-40s expected %-7s got %s",
                    principal, what, resource, expected ? "allow" : "deny", actual ? "allow" : "deny");
        }
    }

    @ParameterizedTest
    @MethodSource("pipelines")
    void everyCellIsWhatTheDefinitionSays(String name, LocalAws aws, ResourceNames names) {
        PipelineDefinition definition = load(name);
        try (LocalPipeline pipeline = LocalPipeline.provision(aws, definition, names, ROOT)) {
            List<Cell> cells = matrix(pipeline, definition);
            cells.forEach(cell -> System.out.println(name + " " + cell));
            assertThat(cells).hasSizeGreaterThan(20);
            assertThat(cells.stream().filter(Cell::mismatch).map(Cell::toString))
                    .as("cells where the template disagrees with the definition")
                    .isEmpty();

            // mutations: each must change a cell
            CloudFormationTemplate template = CloudFormationTemplate.synthesize(definition);
            StageDefinition first = definition.stages().values().iterator().next();
            String firstStage = definition.stages().keySet().iterator().next();
            AccessModel.Principal stageRole =
                    pipeline.stagePrincipal(firstStage).orElseThrow();
            AccessModel model = pipeline.accessModel().orElseThrow();
            String analyst = model.personas().get("analyst").logicalId();
            String someTable = definition.tables().keySet().iterator().next();
            List<String> caught = new ArrayList<>();
            mutate(
                            pipeline,
                            definition,
                            Grants.grant(
                                    template,
                                    analyst,
                                    "dynamodb:PutItem",
                                    logicalId(template, "table", someTable),
                                    null))
                    .ifPresent(m -> caught.add("analyst granted PutItem on " + someTable + ": " + m));
            if (first.deduplicate() != null) {
                mutate(
                                pipeline,
                                definition,
                                Grants.revoke(
                                                template,
                                                stageRole.logicalId(),
                                                "dynamodb:GetItem",
                                                logicalId(template, "table", first.deduplicate()),
                                                null)
                                        .template())
                        .ifPresent(m -> caught.add("dedup GetItem removed: " + m));
            }
            mutate(
                            pipeline,
                            definition,
                            Grants.revoke(
                                            template,
                                            stageRole.logicalId(),
                                            "sqs:SendMessage",
                                            logicalId(
                                                    template,
                                                    "queue",
                                                    first.failure().deadLetterQueue()),
                                            null)
                                    .template())
                    .ifPresent(m -> caught.add("DLQ SendMessage removed: " + m));
            caught.forEach(c -> System.out.println(name + " mutation caught: " + c));
            assertThat(caught).as("every mutation changed a cell").hasSize(first.deduplicate() != null ? 3 : 2);
            pipeline.deployAccess(template);
        }
    }

    /** The first mismatching cell under a mutated template, if any. */
    private java.util.Optional<String> mutate(
            LocalPipeline pipeline, PipelineDefinition definition, CloudFormationTemplate mutated) {
        pipeline.deployAccess(mutated);
        return matrix(pipeline, definition).stream()
                .filter(Cell::mismatch)
                .map(Cell::toString)
                .findFirst();
    }

    private static String logicalId(CloudFormationTemplate template, String kind, String name) {
        return template.resources().values().stream()
                .filter(r ->
                        r.kind().orElse("").equals(kind) && r.name().orElse("").equals(name))
                .map(CloudFormationTemplate.Resource::logicalId)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in the template"));
    }

    private List<Cell> matrix(LocalPipeline pipeline, PipelineDefinition definition) {
        LocalIam iam = pipeline.iam().orElseThrow(() -> new AssertionError("IAM is not enforced"));
        AccessModel model = pipeline.accessModel().orElseThrow();
        PipelineResources r = pipeline.resources();
        String region = "us-east-1";
        String account = "000000000000";
        List<Cell> cells = new ArrayList<>();
        Map<String, List<String>> access = definition.access();
        for (String persona : List.of("analyst", "pipeline-developer", "source-operator", "viewer")) {
            AccessModel.Principal who = model.personas().get(persona);
            assertThat(who).as("persona role %s", persona).isNotNull();
            List<String> listed = access.getOrDefault(persona, List.of());
            definition.streams().forEach((stream, spec) -> {
                String arn = "arn:aws:kinesis:" + region + ":" + account + ":stream/"
                        + r.streams().get(stream);
                boolean readable = READERS.contains(persona)
                        && listed.contains(stream)
                        && spec.classification() != Classification.RESTRICTED;
                cells.add(cell(
                        iam,
                        who,
                        persona,
                        AwsService.KINESIS,
                        "kinesis:GetRecords",
                        arn,
                        KeyUse.DECRYPT,
                        stream,
                        readable));
                boolean writable = persona.equals("source-operator") && listed.contains(stream);
                cells.add(cell(
                        iam,
                        who,
                        persona,
                        AwsService.KINESIS,
                        "kinesis:PutRecords",
                        arn,
                        KeyUse.ENCRYPT,
                        stream,
                        writable));
            });
            definition.tables().keySet().forEach(table -> {
                String arn = "arn:aws:dynamodb:" + region + ":" + account + ":table/"
                        + r.tables().get(table);
                boolean readable = READERS.contains(persona) && listed.contains(table);
                cells.add(cell(
                        iam,
                        who,
                        persona,
                        AwsService.DYNAMODB,
                        "dynamodb:Query",
                        arn,
                        KeyUse.DECRYPT,
                        table,
                        readable));
                cells.add(cell(
                        iam, who, persona, AwsService.DYNAMODB, "dynamodb:PutItem", arn, KeyUse.DECRYPT, table, false));
            });
            definition.lakes().forEach((lake, spec) -> {
                String object = "arn:aws:s3:::" + r.bucket() + "/" + prefix(spec.prefix()) + "dt=2026-12-01/x.jsonl.gz";
                boolean readable = READERS.contains(persona) && listed.contains(lake);
                cells.add(
                        cell(iam, who, persona, AwsService.S3, "s3:GetObject", object, KeyUse.DECRYPT, lake, readable));
                cells.add(cell(iam, who, persona, AwsService.S3, "s3:PutObject", object, KeyUse.ENCRYPT, lake, false));
            });
            definition.queues().keySet().forEach(queue -> {
                String url = r.queueUrls().get(queue);
                String arn = "arn:aws:sqs:" + region + ":" + account + ":" + url.substring(url.lastIndexOf('/') + 1);
                cells.add(cell(
                        iam, who, persona, AwsService.SQS, "sqs:ReceiveMessage", arn, KeyUse.DECRYPT, queue, false));
                cells.add(
                        cell(iam, who, persona, AwsService.SQS, "sqs:SendMessage", arn, KeyUse.ENCRYPT, queue, false));
            });
        }
        definition.stages().forEach((stage, spec) -> {
            AccessModel.Principal role = pipeline.stagePrincipal(stage).orElseThrow();
            String who = "stage " + stage;
            String input = "arn:aws:kinesis:" + region + ":" + account + ":stream/"
                    + r.streams().get(spec.input());
            cells.add(cell(
                    iam,
                    role,
                    who,
                    AwsService.KINESIS,
                    "kinesis:GetRecords",
                    input,
                    KeyUse.DECRYPT,
                    spec.input(),
                    true));
            String dlqUrl = r.queueUrls().get(spec.failure().deadLetterQueue());
            String dlq = "arn:aws:sqs:" + region + ":" + account + ":" + dlqUrl.substring(dlqUrl.lastIndexOf('/') + 1);
            String dlqName = spec.failure().deadLetterQueue();
            cells.add(cell(iam, role, who, AwsService.SQS, "sqs:SendMessage", dlq, KeyUse.ENCRYPT, dlqName, true));
            cells.add(cell(iam, role, who, AwsService.SQS, "sqs:ReceiveMessage", dlq, KeyUse.DECRYPT, dlqName, false));
            if (spec.deduplicate() != null) {
                String table = "arn:aws:dynamodb:" + region + ":" + account + ":table/"
                        + r.tables().get(spec.deduplicate());
                cells.add(cell(
                        iam,
                        role,
                        who,
                        AwsService.DYNAMODB,
                        "dynamodb:GetItem",
                        table,
                        KeyUse.DECRYPT,
                        spec.deduplicate(),
                        true));
            }
            for (SinkDefinition sink : spec.sinks()) {
                if (sink.lake() != null) {
                    String object = "arn:aws:s3:::" + r.bucket() + "/"
                            + prefix(definition.lakes().get(sink.lake()).prefix()) + "dt=2026-12-01/x.jsonl.gz";
                    cells.add(cell(
                            iam, role, who, AwsService.S3, "s3:PutObject", object, KeyUse.ENCRYPT, sink.lake(), true));
                }
                if (sink.stream() != null) {
                    String arn = "arn:aws:kinesis:" + region + ":" + account + ":stream/"
                            + r.streams().get(sink.stream());
                    cells.add(cell(
                            iam,
                            role,
                            who,
                            AwsService.KINESIS,
                            "kinesis:PutRecords",
                            arn,
                            KeyUse.ENCRYPT,
                            sink.stream(),
                            true));
                }
            }
            // a stage reads no stream but its input
            definition.streams().keySet().stream()
                    .filter(stream -> !stream.equals(spec.input()))
                    .forEach(stream -> cells.add(cell(
                            iam,
                            role,
                            who,
                            AwsService.KINESIS,
                            "kinesis:GetRecords",
                            "arn:aws:kinesis:" + region + ":" + account + ":stream/"
                                    + r.streams().get(stream),
                            KeyUse.DECRYPT,
                            stream,
                            false)));
        });
        return cells;
    }

    private static String prefix(String prefix) {
        return prefix.endsWith("/") ? prefix : prefix + "/";
    }

    private static Cell cell(
            LocalIam iam,
            AccessModel.Principal principal,
            String who,
            AwsService service,
            String action,
            String arn,
            KeyUse keyUse,
            String resource,
            boolean expected) {
        Decision decision = iam.decide(principal, service, AccessRequest.of(action, arn, keyUse));
        return new Cell(
                who,
                action + (keyUse == KeyUse.NONE ? "" : " (+kms)"),
                resource,
                expected,
                decision instanceof Decision.Allowed);
    }
}
