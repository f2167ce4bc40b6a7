package dev.sluice.cli.coldstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cold-start runner's wiring: the command line and variables Lambda's Java runtime would use,
 * and one real start of the minimal handler by the runtime interface client against the bench's
 * Runtime API (a child JVM; nothing here asserts a duration).
 */
class ColdStartTest {

    @TempDir
    Path dir;

    private static List<Path> runtimeClasspath() {
        return ColdStart.runtimeClasspath();
    }

    private ColdStart coldStart() {
        return new ColdStart(
                Path.of(System.getProperty("java.home"), "bin", "java"), runtimeClasspath(), dir.resolve("logs"));
    }

    @Test
    void theCommandIsLambdasJavaRuntimeWithItsFlagsAndTheHandler() throws Exception {
        ColdStart.Function function = new ColdStart.Function(
                "payments-validate",
                "dev.sluice.lambda.KinesisStageHandler::handleRequest",
                dir,
                Map.of("X", "1"),
                1024);

        List<String> command = coldStart().command(function);
        Map<String, String> environment = coldStart().environment(function, "127.0.0.1:9001");

        assertThat(command)
                .contains("-XX:+TieredCompilation", "-XX:TieredStopAtLevel=1", "-Xmx870m")
                .endsWith(
                        "com.amazonaws.services.lambda.runtime.api.client.AWSLambda",
                        "dev.sluice.lambda.KinesisStageHandler::handleRequest");
        assertThat(command.get(command.indexOf("-cp") + 1)).contains("aws-lambda-java-runtime-interface-client");
        assertThat(environment)
                .containsEntry("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001")
                .containsEntry("LAMBDA_TASK_ROOT", dir.toString())
                .containsEntry("_HANDLER", "dev.sluice.lambda.KinesisStageHandler::handleRequest")
                .containsEntry("X", "1");
    }

    @Test
    void theRuntimeClientStartsTheMinimalHandlerAndItsResponseIsCollected() throws Exception {
        Path taskRoot = ColdStart.minimalTaskRoot(dir.resolve("task"));
        ColdStart.Function minimal =
                new ColdStart.Function("minimal", MinimalHandler.class.getName(), taskRoot, Map.of(), 256);

        ColdStart.Sample sample = coldStart().run(minimal, "{\"Records\":[]}", "arn:aws:lambda:x", "minimal-test");

        assertThat(sample.response()).isEqualTo("{\"batchItemFailures\":[]}");
        assertThat(sample.initMs()).isPositive().isLessThanOrEqualTo(sample.firstBatchMs());
        assertThat(sample.classesLoaded()).isPositive();
        assertThat(Files.exists(dir.resolve("logs/minimal-test.log"))).isTrue();
    }

    @Test
    void perfCountersAreReadByName() {
        String out = "java.cls.loadedClasses=2315\njava.cls.unloadedClasses=0\n";
        assertThat(ColdStart.counter(out, "java.cls.loadedClasses")).isEqualTo(2315);
        assertThat(ColdStart.counter(out, "java.cls.sharedLoadedClasses")).isEqualTo(-1);
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(ColdStart.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
        assertThat(ColdStart.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    }
}
