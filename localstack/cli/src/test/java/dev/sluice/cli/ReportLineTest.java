package dev.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Lambda's REPORT lines as they land in CloudWatch Logs (fixtures in {@code lambda-report/}, see its
 * README): with a SnapStart restore, warm, a cold start without SnapStart, a console copy; and lines
 * that are not REPORT lines refused with the reason.
 */
class ReportLineTest {

    private static String fixture(String name) {
        try (InputStream in = ReportLineTest.class.getResourceAsStream("/lambda-report/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aRestoredInvocationCarriesRestoreAndBilledRestoreDurationAndNoInitDuration() {
        String line = fixture("snapstart-restore.txt");
        assertThat(line).contains("\t").endsWith("\t\n"); // as Lambda writes it

        ReportLine report = ReportLine.parse(line);

        assertThat(report.requestId()).isEqualTo("3f0c9a12-5b7e-4d21-9c44-8e2a61d0b7f3");
        assertThat(report.durationMs()).isEqualTo(1873.41);
        assertThat(report.billedDurationMs()).isEqualTo(2043);
        assertThat(report.memorySizeMb()).hasValue(1024);
        assertThat(report.maxMemoryUsedMb()).hasValue(197);
        assertThat(report.initDurationMs()).isEmpty();
        assertThat(report.restoreDurationMs()).hasValue(412.30);
        assertThat(report.billedRestoreDurationMs()).hasValue(169);
        assertThat(report.restored()).isTrue();
    }

    @Test
    void aWarmInvocationHasNoRestore() {
        ReportLine report = ReportLine.parse(fixture("snapstart-warm.txt"));

        assertThat(report.durationMs()).isEqualTo(41.52);
        assertThat(report.billedDurationMs()).isEqualTo(42);
        assertThat(report.restored()).isFalse();
        assertThat(report.billedRestoreDurationMs()).isEmpty();
        assertThat(report.initDurationMs()).isEmpty();
    }

    @Test
    void aColdStartWithoutSnapStartCarriesInitDurationInstead() {
        ReportLine report = ReportLine.parse(fixture("cold-start-without-snapstart.txt"));

        assertThat(report.initDurationMs()).hasValue(1648.93);
        assertThat(report.restored()).isFalse();
    }

    @Test
    void aConsoleCopyWithSpacesAndXrayFieldsReadsTheSame() {
        ReportLine report = ReportLine.parse(fixture("snapstart-restore-xray-console.txt"));

        assertThat(report.requestId()).isEqualTo("e25b7c90-1f4d-4a8e-a6c3-7d09b2f1e5a4");
        assertThat(report.durationMs()).isEqualTo(133.27);
        assertThat(report.billedDurationMs()).isEqualTo(298);
        assertThat(report.restoreDurationMs()).hasValue(377.85);
        assertThat(report.billedRestoreDurationMs()).hasValue(165);
    }

    @Test
    void aFailedInvocationsStatusAndErrorTypeAreSkipped() {
        ReportLine report = ReportLine.parse("REPORT RequestId: 1c2d\tDuration: 60000.00 ms\tBilled Duration: 60000 ms"
                + "\tMemory Size: 1024 MB\tMax Memory Used: 230 MB\tStatus: timeout\n");

        assertThat(report.durationMs()).isEqualTo(60000.0);
        assertThat(report.restored()).isFalse();
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', textBlock = """
            START RequestId: 3f0c9a12 Version: 12                                             | it does not start with "REPORT "
            {"time":"2026-12-01T10:00:00Z","type":"platform.report","record":{}}              | a JSON log record
            REPORT RequestId: 3f0c9a12\tBilled Duration: 42 ms                                | no Duration
            REPORT Duration: 41.52 ms\tBilled Duration: 42 ms                                 | no RequestId
            REPORT RequestId: 3f0c9a12\tDuration: fast ms\tBilled Duration: 42 ms             | Duration "fast" is not a number of ms
            REPORT RequestId: 3f0c9a12\tDuration: 41.52 MB\tBilled Duration: 42 ms            | Duration "41.52 MB" is not in ms
            REPORT RequestId: 3f0c9a12\tDuration: 41.52 ms\tBilled Duration: 41.5 ms          | Billed Duration "41.5" is not a whole number of ms
            REPORT RequestId: 3f0c9a12\tDuration: 41.52 ms\tBilled Duration: 42 ms\tRestore Duration: 412.30 ms | Restore Duration without Billed Restore Duration
            REPORT RequestId: 3f0c9a12\tDuration: 41.52 ms\tDuration: 41.52 ms                | the field Duration appears twice
            REPORT RequestId: 3f0c9a12\tDuration: 41.52 ms\tbroken                            | unreadable from column 47
            """)
    void whatIsNotAReportLineIsRefusedSayingWhy(String line, String why) {
        String message = line.replace("\\t", "\t");
        assertThatThrownBy(() -> ReportLine.parse(message))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a Lambda REPORT line (" + why)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\t"));
    }

    private static StageRestore seen(String stage, String fixture, Instant deploy, int secondsLater, String stream) {
        return StageRestore.seen(
                stage, ReportLine.parse(fixture(fixture)), deploy.plusSeconds(secondsLater), stream, deploy);
    }

    @Test
    void theResultFieldsHoldTheLargestRestoreAndOnePerStageNeverAMadeUpFigure() {
        Instant deploy = Instant.parse("2026-12-01T10:00:00Z");
        StageRestore seen = seen("validate", "snapstart-restore.txt", deploy, 95, "2026/12/01/[12]0a1b2c3d4e5f");
        StageRestore other =
                seen("mask-and-rekey", "snapstart-restore-xray-console.txt", deploy, 97, "2026/12/01/[7]ff");
        StageRestore none = StageRestore.none("late-stage", deploy, "no restore seen yet: …");

        assertThat(StageRestore.resultFields(List.of(seen, other, none)))
                .isEqualTo("restore_ms=412.30 restore_ms_validate=412.30 restore_ms_mask_and_rekey=377.85"
                        + " restore_ms_late_stage=n/a");
        assertThat(StageRestore.resultFields(List.of(StageRestore.awsOnly("validate"))))
                .isEqualTo("restore_ms=n/a restore_ms_validate=n/a");
        assertThat(seen.line())
                .isEqualTo("restore: validate 412.30 ms (billed 169 ms), first invocation after the deploy at"
                        + " 2026-12-01T10:00:00Z: logged 2026-12-01T10:01:35Z by version 12, request"
                        + " 3f0c9a12-5b7e-4d21-9c44-8e2a61d0b7f3, handler 1873.41 ms");
        assertThat(StageRestore.awsOnly("validate").line())
                .startsWith("restore: validate n/a: Restore Duration is AWS-only");
    }

    @Test
    void aReportWithOnlyOneOfTheRestoreFieldsCannotBeBuilt() {
        assertThatThrownBy(() -> new ReportLine(
                        "r",
                        1.0,
                        1,
                        OptionalLong.empty(),
                        OptionalLong.empty(),
                        OptionalDouble.empty(),
                        OptionalDouble.of(1.0),
                        OptionalLong.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
