package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.core.TestFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The committed catalogue of broken definitions, {@code bad-input/definitions/}: each file is loaded
 * through {@link DefinitionLoader} (and its checks) and must fail with exactly the one-line message
 * its {@code manifest.txt} line gives, file and line included; exit 0 lines must load.
 */
class BadDefinitionCatalogueTest {

    static final Path FOLDER = TestFiles.root().resolve("bad-input/definitions");

    /** One manifest line: {@code file | exit | message}. */
    record Case(String file, int exit, String message) {
        @Override
        public String toString() {
            return file;
        }
    }

    static List<Case> cases() throws IOException {
        List<Case> cases = new ArrayList<>();
        for (String line : Files.readAllLines(FOLDER.resolve("manifest.txt"), StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] fields = line.split("\\|", 3);
            cases.add(new Case(
                    fields[0].strip(),
                    Integer.parseInt(fields[1].strip()),
                    fields.length > 2 ? fields[2].strip() : ""));
        }
        return cases;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachBrokenDefinitionFailsWithItsOneLineMessage(Case c) throws IOException {
        byte[] content = Files.readAllBytes(FOLDER.resolve(c.file()));

        Throwable thrown = catchThrowable(() -> TestFiles.loader().parse(c.file(), content));

        if (c.exit() == 0) {
            assertThat(thrown).as(c.file() + " loads").isNull();
        } else {
            assertThat(thrown).isInstanceOf(DefinitionException.class);
            assertThat(thrown.getMessage()).isEqualTo(c.message()).doesNotContain("\n");
        }
    }

    @Test
    void everyFileOfTheCatalogueIsInTheManifest() throws IOException {
        Set<String> listed = new TreeSet<>();
        cases().forEach(c -> listed.add(c.file()));
        Set<String> files = new TreeSet<>();
        try (Stream<Path> all = Files.list(FOLDER)) {
            all.map(p -> p.getFileName().toString())
                    .filter(name -> name.endsWith(".yaml"))
                    .forEach(files::add);
        }

        assertThat(listed).isEqualTo(files);
    }
}
