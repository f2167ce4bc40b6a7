package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.definition.DefinitionLoader;
import dev.sluice.core.definition.PipelineDefinition;
import dev.sluice.core.schema.SchemaCatalog;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import dev.sluice.generators.GeneratedEvent;
import dev.sluice.local.LocalPipeline;
import dev.sluice.verify.reconcile.LedgerEntry;
import dev.sluice.verify.reconcile.Producer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The committed bad-input catalogue ({@code bad-input/records/}) put into the local payments
 * stream: every record the manifest expects dead-lettered reaches the dead-letter queue once with
 * its reason code and its exact bytes — inline, or through the claim check in the pipeline's bucket
 * for a record too large for a message — and the shard moves on.
 */
@ExtendWith(LocalAwsExtension.class)
class BadInputRecordsIT {

    private static final Path ROOT = Path.of(System.getProperty("sluice.root"));
    private static final Path CATALOGUE = ROOT.resolve("bad-input/records");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static PipelineDefinition payments() {
        return new DefinitionLoader(SchemaCatalog.fromDirectory(ROOT.resolve("schemas"), MAPPER))
                .load(ROOT.resolve("pipelines/payments.yaml"));
    }

    private record Case(String file, String expected, byte[] data) {}

    private static List<Case> catalogue() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(CATALOGUE.resolve("expected.tsv"), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] columns = line.split("\t", -1);
            byte[] data = Files.readAllBytes(CATALOGUE.resolve(columns[0]));
            if (data.length > 0) { // Kinesis takes no empty record
                cases.add(new Case(columns[0], columns[1], data));
            }
        }
        return cases;
    }

    @Test
    void everyCataloguedBadRecordReachesTheDeadLetterQueueWithItsReasonAndItsBytes(LocalAws aws, ResourceNames names)
            throws IOException {
        List<Case> cases = new ArrayList<>(catalogue());
        // a malformed record too large for an SQS message: its bytes go to the claim check
        byte[] valid = Files.readAllBytes(CATALOGUE.resolve("valid.json"));
        byte[] large = new byte[400 * 1024];
        java.util.Arrays.fill(large, (byte) ' ');
        System.arraycopy(valid, 0, large, 0, valid.length);
        large[large.length - 1] = 'x';
        cases.add(new Case("large-with-trailing-garbage", "MALFORMED_JSON", large));

        try (LocalPipeline pipeline =
                LocalPipeline.provision(aws, payments(), names, ROOT).start(Optional.of(Duration.ZERO))) {
            List<GeneratedEvent> events = new ArrayList<>();
            for (Case c : cases) {
                events.add(new GeneratedEvent(
                        c.file(), "cust-0042137", c.data(), c.expected().equals("ACCEPTED") ? null : c.expected()));
            }
            List<LedgerEntry> ledger = new Producer(
                            aws.kinesis(), pipeline.resources().streams().get("payments-raw"))
                    .send(events, n -> {});

            await().atMost(Duration.ofSeconds(120)).until(() -> pipeline.acknowledged() >= ledger.size());

            String queue = pipeline.resources().queueUrls().get("payments-dlq");
            Map<String, List<JsonNode>> byPosition = new HashMap<>();
            for (List<Message> page = receive(aws, queue); !page.isEmpty(); page = receive(aws, queue)) {
                for (Message m : page) {
                    JsonNode body = MAPPER.readTree(m.body());
                    byPosition
                            .computeIfAbsent(
                                    body.path("shardId").asText() + "/"
                                            + body.path("sequenceNumber").asText(),
                                    k -> new ArrayList<>())
                            .add(body);
                }
            }
            SoftAssertions soft = new SoftAssertions();
            int claimChecked = 0;
            for (LedgerEntry entry : ledger) {
                String file = entry.event().eventId();
                String expected = entry.event().expectedReason();
                // accepted events of the fixture are an hour-window late by now: LATE reports only
                List<JsonNode> letters =
                        byPosition.getOrDefault(entry.shardId() + "/" + entry.sequenceNumber(), List.of()).stream()
                                .filter(b -> !b.path("reasonCode").asText().equals("LATE"))
                                .toList();
                if (expected == null) {
                    soft.assertThat(letters).as(file).isEmpty();
                    continue;
                }
                soft.assertThat(letters).as(file).hasSize(1);
                if (letters.size() != 1) {
                    continue;
                }
                JsonNode body = letters.get(0);
                soft.assertThat(body.path("reasonCode").asText()).as(file).isEqualTo(expected);
                soft.assertThat(body.path("reason").asText()).as(file).startsWith(expected + ": ");
                byte[] payload;
                if (body.has("payloadS3")) {
                    claimChecked++;
                    JsonNode ref = body.path("payloadS3");
                    soft.assertThat(ref.path("bucket").asText())
                            .isEqualTo(pipeline.resources().bucket());
                    soft.assertThat(ref.path("key").asText())
                            .as(file)
                            .isEqualTo("sluice-dead-letters/payments-dlq/validate/"
                                    + pipeline.resources().streams().get("payments-raw") + "/" + entry.shardId()
                                    + "/" + entry.sequenceNumber());
                    payload = aws.s3()
                            .getObjectAsBytes(b -> b.bucket(ref.path("bucket").asText())
                                    .key(ref.path("key").asText()))
                            .asByteArray();
                } else if (body.has("payloadBase64")) {
                    payload = Base64.getDecoder()
                            .decode(body.path("payloadBase64").asText());
                } else {
                    payload = body.path("payload").asText().getBytes(StandardCharsets.UTF_8);
                }
                soft.assertThat(payload)
                        .as(file + ": the record's bytes")
                        .isEqualTo(entry.event().data());
                soft.assertThat(body.path("payloadTruncated").asBoolean())
                        .as(file)
                        .isFalse();
            }
            soft.assertAll();
            assertThat(claimChecked).isEqualTo(1);
        }
    }

    private static List<Message> receive(LocalAws aws, String queue) {
        return aws.sqs()
                .receiveMessage(b -> b.queueUrl(queue).maxNumberOfMessages(10).visibilityTimeout(120))
                .messages();
    }
}
