package dev.sluice.emulators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalAwsStartTest {

    @Test
    void refusesToStartWithoutNodeModules(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("package.json"), "{}");
        long children = ProcessHandle.current().children().count();

        assertThatThrownBy(() -> LocalAws.start(
                        LocalAwsOptions.builder().localstackDirectory(dir).build()))
                .isInstanceOf(LocalAwsException.class)
                .hasMessage(LocalstackDirectory.MISSING_NODE_MODULES);
        assertThat(ProcessHandle.current().children().count()).isEqualTo(children);
    }

    @Test
    void optionsKeepWhatTheBuilderWasGiven(@TempDir Path dir) {
        LocalAwsOptions options = LocalAwsOptions.builder()
                .region("eu-west-1")
                .logDirectory(dir.resolve("logs"))
                .kinesisDataDirectory(dir.resolve("kinesis"))
                .dynamoDbDataDirectory(dir.resolve("dynamodb"))
                .nodeExecutable("/opt/node/bin/node")
                .startTimeout(Duration.ofSeconds(5))
                .build();
        LocalAwsOptions copy =
                options.toBuilder().stopTimeout(Duration.ofSeconds(9)).build();

        assertThat(copy.region()).isEqualTo("eu-west-1");
        assertThat(copy.logDirectory()).contains(dir.resolve("logs"));
        assertThat(copy.kinesisDataDirectory()).contains(dir.resolve("kinesis"));
        assertThat(copy.dynamoDbDataDirectory()).contains(dir.resolve("dynamodb"));
        assertThat(copy.nodeExecutable()).isEqualTo("/opt/node/bin/node");
        assertThat(copy.startTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(copy.stopTimeout()).isEqualTo(Duration.ofSeconds(9));
        assertThat(LocalAwsOptions.defaults().region()).isEqualTo("us-east-1");
        assertThat(LocalAwsOptions.defaults().kinesisDataDirectory()).isEmpty();
        assertThatThrownBy(() -> LocalAwsOptions.builder().stopTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void kinesisMockGetsHalfTheMachinesMemoryAsItsHeapLimitAfterTheCallersNodeOptions() {
        long gib = 1024L * 1024 * 1024;
        assertThat(LocalAws.kinesisNodeOptions(null, 24 * gib)).isEqualTo("--max-old-space-size=12288");
        assertThat(LocalAws.kinesisNodeOptions(" --trace-warnings ", 24 * gib))
                .isEqualTo("--trace-warnings --max-old-space-size=12288");
        assertThat(LocalAws.kinesisNodeOptions("", 2 * gib))
                .isEqualTo("--max-old-space-size=" + LocalAws.KINESIS_MIN_HEAP_MB);
        assertThat(LocalAws.kinesisNodeOptions(null, 0)).isEqualTo("--max-old-space-size=4096");
    }
}
