package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ./sluice invoke --event FILE} with a file that is not a Kinesis event Lambda could send:
 * exit 2 and one line naming the problem (then the usage), no exception text, before any emulator
 * starts.
 */
class InvokeEventFileTest {

    private static final String RECORD =
            "{\"eventID\":\"shardId-000000000000:49590338271490256608559692538361571095921575989136588898\","
                    + "\"kinesis\":{\"sequenceNumber\":\"49590338271490256608559692538361571095921575989136588898\","
                    + "\"partitionKey\":\"cust-0042137\",\"data\":\"e30=\"}}";

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {"Records":[{}]}                                  | Records[0].eventID is missing (shardId-000000000000:<sequence number>)
            {"Records":[1]}                                   | Records[0] is not an object
            {"Records":{}}                                    | it has no "Records" array
            {"records":[]}                                    | it has no "Records" array
            {"Records":[{"eventID":"shardId-000000000000:1"}]} | Records[0].kinesis is missing
            {"Records":[{"eventID":"s:1","kinesis":{"partitionKey":"k","data":"e30="}}]} | Records[0].kinesis.sequenceNumber must be a string of decimal digits, got nothing
            {"Records":[{"eventID":"s:1","kinesis":{"sequenceNumber":"007","partitionKey":"k","data":"e30="}}]} | Records[0].kinesis.sequenceNumber must be a string of decimal digits, got "007"
            {"Records":[{"eventID":"s:1","kinesis":{"sequenceNumber":"1","data":"e30="}}]} | Records[0].kinesis.partitionKey is missing
            {"Records":[{"eventID":"s:1","kinesis":{"sequenceNumber":"1","partitionKey":"k"}}]} | Records[0].kinesis.data is missing (the record's bytes, base64)
            {"Records":[{"eventID":"s:1","kinesis":{"sequenceNumber":"1","partitionKey":"k","data":"not base64!!"}}]} | Records[0].kinesis.data is not base64: Illegal base64 character 20
            {"Records":[{"eventID":"s:1","kinesis":{"sequenceNumber":"1","partitionKey":"k","data":"e30"}}]} | Records[0].kinesis.data is not base64: its length is not a multiple of 4 (padding missing?)
            {"Records":[RECORD,{"eventID":"s:2","kinesis":{"sequenceNumber":"2","partitionKey":"k","data":"e30=","approximateArrivalTimestamp":"yesterday"}}]} | Records[1].kinesis.approximateArrivalTimestamp must be a number of seconds, got "yesterday"
            """)
    void eventThatIsNotAKinesisEventExitsTwoWithOneLineNamingTheProblem(String json, String problem, @TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("event.json");
        Files.writeString(file, json.replace("RECORD", RECORD), StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = new SluiceCli(
                        Path.of(System.getProperty("sluice.root", "..")),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(List.of("invoke", "--event", file.toString()));

        assertThat(status).isEqualTo(2);
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).isEqualTo("sluice: " + file + " is not a Kinesis event: " + problem);
        assertThat(lines.get(1)).startsWith("usage: ./sluice <command>");
        assertThat(err.toString(StandardCharsets.UTF_8))
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
