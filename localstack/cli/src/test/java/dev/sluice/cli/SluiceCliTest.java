package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Command-line errors: exit status 2, one line naming the problem, then the usage. */
class SluiceCliTest {

    @ParameterizedTest(name = "[{index}] {1}")
    @CsvSource(delimiter = '|', textBlock = """
            ''                              | sluice: no command given
            frobnicate                      | sluice: unknown command 'frobnicate'
            demo --events                   | sluice: option --events needs a value
            demo --events abc               | sluice: option --events must be a positive whole number, got 'abc'
            demo --events 0                 | sluice: option --events must be a positive whole number, got '0'
            demo --speed 3                  | sluice: unknown option --speed for 'demo'
            demo --events 5 --events 6      | sluice: option --events given twice
            demo extra                      | sluice: 'demo' takes no argument 'extra'
            faults --rate 0                 | sluice: option --rate must be a positive whole number, got '0'
            faults --rate 2001              | sluice: option --rate must be at most 2,000, got '2001'
            invoke                          | sluice: invoke needs --event FILE
            smoke                           | sluice: smoke needs --pipeline (payments or clickstream)
            smoke --pipeline orders         | sluice: no pipeline 'orders' in pipelines/
            smoke --pipeline ../pipelines/payments | sluice: no pipeline '../pipelines/payments' in pipelines/
            smoke --pipeline payments --events 101 | sluice: option --events must be at most 100, got '101'
            smoke --pipeline payments --aws yes | sluice: 'smoke' takes no argument 'yes'
            invoke --event /no/such/file    | sluice: no such file: /no/such/file
            plan                            | sluice: plan needs --users (or --example payments, --example clickstream)
            plan --users -5 --events-per-day 3 --record-bytes 1024 --retention-days 30 | sluice: option --users must be a positive whole number, got '-5'
            plan --example payments --users -5 | sluice: option --users must be a positive whole number, got '-5'
            plan --example payments --headroom -1 | sluice: option --headroom must be a number of 0 or more, got '-1'
            plan --example payments --shards 3 | sluice: unknown option --shards for 'plan'
            plan --example orders           | sluice: unknown example 'orders' for 'plan' (known: payments, clickstream)
            plan --example payments --peak-events-per-day 1 | sluice: plan: peak-events-per-day (1) must be at least events-per-day (3)
            plan --example payments --parallelization 11 | sluice: plan: parallelization must be between 1 and 10, got 11
            plan --example payments --from-report /no/such/report.json | sluice: --from-report: no such load report: /no/such/report.json
            plan --example payments --dynamodb-capacity reserved | sluice: plan: dynamodb-capacity must be on-demand or provisioned, got 'reserved'
            plan --example payments --kcl-stages -1 | sluice: option --kcl-stages must be a whole number from 0 to 20, got '-1'
            """)
    void badCommandLineExitsTwoWithOneClearLineAndTheUsage(String args, String firstLine) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = cli(out, err).run(args.isEmpty() ? List.of() : List.of(args.split(" ")));

        assertThat(status).isEqualTo(2);
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).isEqualTo(firstLine);
        assertThat(lines.get(1)).startsWith("usage: ./sluice <command>");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void planOfThePaymentsExampleEndsWithTheResultLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = cli(out, err).run(List.of("plan", "--example", "payments"));

        assertThat(status).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.get(0)).startsWith("Sluice capacity plan");
        assertThat(lines)
                .anySatisfy(line -> assertThat(line).contains("34.7 average").contains("231.5 peak"));
        assertThat(lines.get(lines.size() - 1))
                .matches("RESULT avg_events_per_s=34\\.7 peak_events_per_s=231\\.5 shards=1 lambda_concurrency=1"
                        + " kcl_workers=2 monthly_usd=\\d+\\.\\d\\d usd_per_million=\\d+\\.\\d{4}"
                        + " lake_only_usd_per_million=\\d+\\.\\d{4} firehose_usd_per_million=\\d+\\.\\d{4}"
                        + " dynamodb_capacity=on-demand");
    }

    @Test
    void planOptionsOverrideTheExample() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int status = cli(out, new ByteArrayOutputStream())
                .run(List.of("plan", "--example", "clickstream", "--parallelization", "2", "--headroom", "0"));

        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)
                        .lines()
                        .reduce((a, b) -> b)
                        .orElseThrow())
                .startsWith("RESULT avg_events_per_s=2083.3 peak_events_per_s=4166.7 shards=5 lambda_concurrency=10"
                        + " kcl_workers=2 monthly_usd=");
    }

    @Test
    void planWithAMissingPriceTableExitsOneNamingIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = cli(new ByteArrayOutputStream(), err)
                .run(List.of("plan", "--example", "payments", "--price-table", "/no/such/prices.json"));

        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("sluice: price table /no/such/prices.json: no such file");
    }

    @Test
    void planFromAReportUsesItsMeasuredDurationAndCeilingAndNamesTheReport(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        Path report = dir.resolve("report.json");
        java.nio.file.Files.writeString(
                report,
                "{\"kind\":\"load\",\"data\":{\"pipeline\":\"payments\",\"stage\":\"validate\",\"awsLatency\":true,"
                        + "\"capacity\":[{\"stage\":\"validate\",\"consumer\":\"lambda\",\"batchSize\":100,"
                        + "\"parallelizationFactor\":1,\"recordsPerBatch\":50,\"durationMeanMs\":400.2,"
                        + "\"ceilingPerShard\":100}]}}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int status = cli(out, new ByteArrayOutputStream())
                .run(List.of("plan", "--example", "payments", "--from-report", report.toString()));

        assertThat(status).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines)
                .contains(
                        "                           Lambda duration per batch: 401 ms (mean 400.2 ms at 50.0 records a"
                                + " batch), measured: report " + report
                                + " (payments, stage validate, AWS latency modelled)")
                .contains("                           consumer ceiling per shard: 100 events/s (batch size 100 ×"
                        + " parallelization 1), measured: report " + report + " (payments, stage validate, AWS"
                        + " latency modelled)")
                .anySatisfy(line -> assertThat(line).contains("1024 MB × 401 ms a batch"))
                .contains(
                        "                             note: the run's batches held 50.0 records, this plan's hold 11.6"
                                + " on average: the measured duration is of other batches (give --lambda-ms-per-batch to"
                                + " override)");
        assertThat(lines.get(lines.size() - 1))
                .startsWith("RESULT avg_events_per_s=34.7 peak_events_per_s=231.5 shards=3");

        ByteArrayOutputStream given = new ByteArrayOutputStream();
        cli(given, new ByteArrayOutputStream())
                .run(List.of(
                        "plan",
                        "--example",
                        "payments",
                        "--from-report",
                        report.toString(),
                        "--lambda-ms-per-batch",
                        "150"));
        assertThat(given.toString(StandardCharsets.UTF_8))
                .as("an explicit duration wins over the measured one")
                .contains("Lambda duration per batch: 150 ms, given (--lambda-ms-per-batch)");
    }

    @Test
    void planFromAHandlerBenchPricesItsMeasuredRequestsAtTheBenchedRecordSize(
            @org.junit.jupiter.api.io.TempDir Path dir) throws java.io.IOException {
        Path report = dir.resolve("report.json");
        java.nio.file.Files.writeString(
                report,
                "{\"kind\":\"bench\",\"data\":{\"stages\":[{\"pipeline\":\"payments\",\"stage\":\"validate\","
                        + "\"batchSize\":100,\"sluice\":{\"requestsPer1000\":{\"DYNAMODB PutItem\":1000.0,"
                        + "\"DYNAMODB UpdateItem\":50.0,\"S3 PutObject\":10.0}},\"model\":{\"parallelization\":1,"
                        + "\"recordBytes\":392.4,\"memoryMb\":2048,\"durations\":{\"meanMillis\":270.0},\"ceiling\":{\"perShard\":352.0}}}]}}");
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        int status = cli(out, new ByteArrayOutputStream())
                .run(List.of(
                        "plan",
                        "--example",
                        "payments",
                        "--from-report",
                        report.toString(),
                        "--dynamodb-capacity",
                        "provisioned"));

        assertThat(status).isZero();
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines)
                .anySatisfy(line -> assertThat(line).contains("record size: 393 bytes"))
                .anySatisfy(line -> assertThat(line)
                        .contains("AWS requests per event: measured by the handler bench" + " for validate"))
                // 34.7 records a batch on one shard: 270 ms × 34.7 ÷ 100
                .anySatisfy(
                        line -> assertThat(line).contains("scaled to this plan's 34.7 records a batch: 94 ms a batch"))
                // 393 bytes and the item's attributes fit one write unit; UpdateItem scaled by 100 ÷ 34.7
                .anySatisfy(line -> assertThat(line)
                        .contains("provisioned writes")
                        .contains("measured: 1000.0 PutItem (1 unit each) + 144.0 UpdateItem/DeleteItem per 1,000"
                                + " events at 34.7 records a batch"));
        assertThat(lines.get(lines.size() - 1)).endsWith(" dynamodb_capacity=provisioned");
    }

    private static SluiceCli cli(ByteArrayOutputStream out, ByteArrayOutputStream err) {
        return new SluiceCli(
                Path.of(System.getProperty("sluice.root")),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }
}
