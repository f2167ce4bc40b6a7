package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalstackDirectoryTest {

    @TempDir
    Path repo;

    @Test
    void prefersTheRootProperty() throws IOException {
        Path localstack = localstack(repo);
        Path elsewhere = Files.createDirectories(repo.resolveSibling(repo.getFileName() + "-other"));
        assertThat(LocalstackDirectory.locate(repo.toString(), elsewhere)).isEqualTo(localstack);
    }

    @Test
    void searchesUpwardsFromTheWorkingDirectory() throws IOException {
        Path localstack = localstack(repo);
        Path deep = Files.createDirectories(repo.resolve("functions/lambda/src"));
        assertThat(LocalstackDirectory.locate(null, deep)).isEqualTo(localstack);
        assertThat(LocalstackDirectory.locate("", localstack)).isEqualTo(localstack);
    }

    @Test
    void fallsBackToSearchingWhenTheRootPropertyIsWrong() throws IOException {
        Path localstack = localstack(repo);
        Path wrong = Files.createDirectories(repo.resolve("nothing-here"));
        assertThat(LocalstackDirectory.locate(wrong.toString(), repo)).isEqualTo(localstack);
    }

    @Test
    void explainsWhenNothingIsFound() throws IOException {
        Path empty = Files.createDirectories(repo.resolve("empty"));
        assertThatThrownBy(() -> LocalstackDirectory.locate(null, empty))
                .isInstanceOf(LocalAwsException.class)
                .hasMessageContaining("localstack/package.json")
                .hasMessageContaining("-Dsluice.root");
    }

    @Test
    void missingNodeModulesGivesOneClearMessage() throws IOException {
        Path localstack = localstack(repo);
        assertThatThrownBy(() -> LocalstackDirectory.requireInstalled(localstack))
                .isInstanceOf(LocalAwsException.class)
                .hasMessage(
                        "localstack/node_modules is missing: run `npm ci` in localstack/ (./sluice does it for you)");
    }

    @Test
    void incompleteNodeModulesNamesTheMissingFile() throws IOException {
        Path localstack = localstack(repo);
        Files.createDirectories(localstack.resolve("node_modules/kinesis-local"));
        Files.writeString(localstack.resolve("node_modules/kinesis-local/main.js"), "");
        Files.writeString(localstack.resolve("node_modules/kinesis-local/server.json"), "{}");
        assertThatThrownBy(() -> LocalstackDirectory.requireInstalled(localstack))
                .isInstanceOf(LocalAwsException.class)
                .hasMessageStartingWith(LocalstackDirectory.MISSING_NODE_MODULES)
                .hasMessageContaining("dynalite");
    }

    @Test
    void acceptsACompleteInstallation() throws IOException {
        Path localstack = localstack(repo);
        for (String file : new String[] {
            "node_modules/kinesis-local/main.js",
            "node_modules/kinesis-local/server.json",
            "node_modules/dynalite/cli.js",
            "bin/with-parent.js"
        }) {
            Files.createDirectories(localstack.resolve(file).getParent());
            Files.writeString(localstack.resolve(file), "");
        }
        assertThat(LocalstackDirectory.requireInstalled(localstack)).isEqualTo(localstack);
    }

    @Test
    void theRealRepositoryIsInstalled() {
        // run by Maven with -Dsluice.root, after `npm ci`
        Path localstack = LocalstackDirectory.locate();
        assertThat(localstack.resolve("package.json")).exists();
        assertThat(LocalstackDirectory.requireInstalled(localstack)).isEqualTo(localstack);
    }

    private static Path localstack(Path root) throws IOException {
        Path dir = Files.createDirectories(root.resolve("localstack"));
        Files.writeString(dir.resolve("package.json"), "{\"name\":\"sluice-localstack\"}");
        return dir.toAbsolutePath().normalize();
    }
}
