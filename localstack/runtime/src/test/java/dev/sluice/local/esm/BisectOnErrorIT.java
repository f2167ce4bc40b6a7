package dev.sluice.local.esm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.emulators.LocalAws;
import dev.sluice.emulators.LocalAwsExtension;
import dev.sluice.emulators.ResourceNames;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;

/** A function that fails as a whole: bisecting isolates the record that makes it fail. */
@ExtendWith(LocalAwsExtension.class)
class BisectOnErrorIT {

    @BeforeEach
    void resetHandler() {
        RecordingHandler.reset();
    }

    @Test
    void bisectingDeliversEveryRecordButThePoisonOneAndDescribesItOnTheFailureQueue(LocalAws aws, ResourceNames names)
            throws Exception {
        String stream = names.name("bisect");
        String queue = aws.sqs()
                .createQueue(b -> b.queueName(names.name("on-failure")))
                .queueUrl();
        List<PutRecordsResultEntry> put = ParallelizationFactorIT.put(aws, stream);
        String poison = put.get(37).sequenceNumber();
        RecordingHandler.POISON.add(poison);

        try (LocalEventSourceMapping mapping = ParallelizationFactorIT.mapping(aws, names, stream, 1, true, queue)
                .start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> mapping.acknowledged() >= 120);
            assertThat(mapping.stats().discarded()).isEqualTo(1);
        }

        List<String> delivered = RecordingHandler.DELIVERIES.values().stream()
                .flatMap(List::stream)
                .distinct()
                .toList();
        assertThat(delivered).hasSize(119).doesNotContain(poison);
        ParallelizationFactorIT.assertEveryKeyInOrder(RecordingHandler.DELIVERIES);
        List<Message> failures = aws.sqs()
                .receiveMessage(b -> b.queueUrl(queue).maxNumberOfMessages(10))
                .messages();
        assertThat(failures).hasSize(1);
        JsonNode info = new ObjectMapper().readTree(failures.get(0).body()).path("KinesisBatchInfo");
        assertThat(info.path("startSequenceNumber").asText()).isEqualTo(poison);
        assertThat(info.path("endSequenceNumber").asText()).isEqualTo(poison);
        assertThat(info.path("batchSize").asInt()).isEqualTo(1);
    }

    @Test
    void withoutBisectingTheWholeBatchIsGivenUp(LocalAws aws, ResourceNames names) {
        String stream = names.name("no-bisect");
        List<PutRecordsResultEntry> put = ParallelizationFactorIT.put(aws, stream);
        RecordingHandler.POISON.add(put.get(37).sequenceNumber());

        try (LocalEventSourceMapping mapping = ParallelizationFactorIT.mapping(aws, names, stream, 1, false, null)
                .start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> mapping.acknowledged() >= 120);
            assertThat(mapping.stats().discarded()).isGreaterThan(1);
        }
    }
}
