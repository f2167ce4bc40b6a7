package dev.sluice.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The deployment package AWS Lambda runs, as built by {@code package}. */
class LambdaArtifactIT {

    private static Path zip;
    private static List<String> entries;

    @BeforeAll
    static void findArtifact() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            zip = files.filter(f -> f.getFileName().toString().endsWith("-lambda.zip"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no *-lambda.zip in target/: did package run?"));
        }
        entries = new ArrayList<>();
        try (ZipFile file = new ZipFile(zip.toFile())) {
            file.stream().map(ZipEntry::getName).forEach(entries::add);
        }
    }

    @Test
    void handlerAndDefinitionsAreInTheLibFolder() throws IOException {
        assertThat(entries).allMatch(e -> e.startsWith("lib/"), "every entry under lib/");
        assertThat(entries).anyMatch(e -> e.matches("lib/sluice-lambda-.*\\.jar"));
        assertThat(classesIn("sluice-lambda")).contains("dev/sluice/lambda/KinesisStageHandler.class");
        assertThat(classesIn("sluice-pipeline-core"))
                .contains("sluice/pipelines/payments.yaml", "sluice/schemas/payments.transaction.v1.json");
    }

    @Test
    void noEmulatorOrLocalOnlyCodeIsShipped() {
        assertThat(entries)
                .noneMatch(e -> e.contains("s3proxy"))
                .noneMatch(e -> e.contains("elasticmq"))
                .noneMatch(e -> e.contains("sluice-localstack"))
                .noneMatch(e -> e.contains("aws-lambda-java-serialization"))
                .noneMatch(e -> e.contains("netty-nio-client"))
                .noneMatch(e -> e.contains("apache-client"))
                .noneMatch(e -> e.contains("junit"));
    }

    private static List<String> classesIn(String jarPrefix) throws IOException {
        String jar = entries.stream()
                .filter(e -> e.startsWith("lib/" + jarPrefix + "-"))
                .findFirst()
                .orElseThrow();
        List<String> names = new ArrayList<>();
        try (ZipFile file = new ZipFile(zip.toFile());
                ZipInputStream in = new ZipInputStream(file.getInputStream(file.getEntry(jar)))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                names.add(e.getName());
            }
        }
        return names;
    }
}
