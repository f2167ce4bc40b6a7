package dev.sluice.core.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sluice.core.TestFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link DefinitionLoader} with mutations of the real definitions ({@code pipelines/*.yaml}
 * and the catalogue's valid baseline): lines dropped, duplicated, swapped, re-indented, values
 * retyped, tabs and bytes that are not UTF-8 inserted, the file cut short. Whatever the text, the
 * loader either accepts it or throws a {@link DefinitionException} whose message is one line
 * starting with the file's name; never another exception.
 */
class DefinitionLoaderFuzzTest {

    private static final DefinitionLoader LOADER = TestFiles.loader();

    /** Values put in place of a field's value: wrong types, decimals, overflows, paths, nothing. */
    private static final List<String> VALUES = List.of(
            "1.5",
            "-1",
            "0",
            "true",
            "[]",
            "{}",
            "~",
            "''",
            "99999999999",
            "1e400",
            "-0.0",
            "../../",
            "[a, b",
            "{a: 1",
            "'unterminated",
            "&anchor x",
            "*missing",
            "!!binary AAAA",
            "payload.nothing",
            "lambda",
            "kcl",
            "java.lang.String",
            "2026-13-45T99:00:00Z",
            "\"\\uD800\"",
            "- item");

    private static final int KINDS = 10;

    /** The texts mutated: every repository definition and the catalogue's baseline. */
    private static final List<Source> SOURCES = sources();

    record Source(String name, byte[] content) {}

    /** A mutated definition; its toString is what a failure report shows. */
    record Mutated(String name, String mutation, byte[] content) {
        @Override
        public String toString() {
            return name + " with " + mutation + ":\n" + new String(content, StandardCharsets.UTF_8);
        }
    }

    @Test
    void mutatedDefinitionsAreAcceptedOrRefusedWithOneLine() {
        assertTheProperty(LOADER::parse, 800);
    }

    /**
     * The mutation check: a loader that binds with plain Jackson (no translation of its exceptions
     * into {@link DefinitionException}) must be caught by the same property.
     */
    @Test
    void thePropertyCatchesALoaderThatLetsParserExceptionsThrough() {
        ObjectMapper plain = new ObjectMapper(new YAMLFactory());
        BiFunction<String, byte[], PipelineDefinition> broken = (file, content) -> {
            try {
                return plain.readValue(content, PipelineDefinition.class);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };

        assertThatThrownBy(() -> assertTheProperty(broken, 300))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Property falsified");
    }

    private static void assertTheProperty(BiFunction<String, byte[], PipelineDefinition> loader, int examples) {
        qt().withFixedSeed(20_261_201L)
                .withExamples(examples)
                .withShrinkCycles(50)
                .forAll(
                        integers().between(0, SOURCES.size() * KINDS - 1),
                        integers().between(0, 1_000_000),
                        integers().between(0, 1_000_000),
                        integers().between(0, 255))
                .as(DefinitionLoaderFuzzTest::mutate)
                .checkAssert(m -> {
                    try {
                        loader.apply(m.name(), m.content());
                    } catch (DefinitionException e) {
                        assertThat(e.getMessage())
                                .startsWith(m.name())
                                .doesNotContain("\n")
                                .doesNotContain("\r");
                        assertThat(e.problem()).isNotBlank();
                    }
                });
    }

    private static Mutated mutate(int sourceAndKind, int a, int b, int value) {
        Source source = SOURCES.get(sourceAndKind / KINDS);
        int kind = sourceAndKind % KINDS;
        byte[] bytes = source.content();
        List<String> lines = new ArrayList<>(Arrays.asList(new String(bytes, StandardCharsets.UTF_8).split("\n", -1)));
        int i = a % lines.size();
        int j = b % lines.size();
        String mutation;
        switch (kind) {
            case 0 -> {
                mutation = "line " + (i + 1) + " dropped";
                lines.remove(i);
            }
            case 1 -> {
                mutation = "line " + (i + 1) + " duplicated";
                lines.add(i, lines.get(i));
            }
            case 2 -> {
                mutation = "a tab before line " + (i + 1);
                lines.set(i, "\t" + lines.get(i));
            }
            case 3 -> {
                int at = a % bytes.length;
                byte[] changed = bytes.clone();
                changed[at] = (byte) value;
                return new Mutated(source.name(), "byte " + at + " set to " + value, changed);
            }
            case 4 -> {
                String line = lines.get(i);
                int colon = line.indexOf(": ");
                String replacement = VALUES.get(b % VALUES.size());
                if (colon < 0) {
                    mutation = "line " + (i + 1) + " replaced by '" + replacement + "'";
                    lines.set(i, line.replaceAll("\\S.*", replacement));
                } else {
                    mutation = "the value on line " + (i + 1) + " retyped to '" + replacement + "'";
                    lines.set(i, line.substring(0, colon + 2) + replacement);
                }
            }
            case 5 -> {
                String line = lines.get(i);
                boolean deeper = value % 2 == 0 || !line.startsWith(" ");
                mutation = "line " + (i + 1) + (deeper ? " indented one more space" : " indented one less");
                lines.set(i, deeper ? " " + line : line.substring(1));
            }
            case 6 -> {
                mutation = "lines " + (i + 1) + " and " + (j + 1) + " swapped";
                String swapped = lines.get(i);
                lines.set(i, lines.get(j));
                lines.set(j, swapped);
            }
            case 7 -> {
                int at = a % bytes.length;
                return new Mutated(source.name(), "cut after byte " + at, Arrays.copyOf(bytes, at));
            }
            case 8 -> {
                Source other = SOURCES.get(value % SOURCES.size());
                String[] otherLines = new String(other.content(), StandardCharsets.UTF_8).split("\n");
                String moved = otherLines[b % otherLines.length];
                mutation = "line " + (b % otherLines.length + 1) + " of " + other.name() + " inserted before line "
                        + (i + 1);
                lines.add(i, moved);
            }
            default -> {
                // an invalid UTF-8 sequence (a lone continuation byte, an overlong form, a surrogate)
                byte[][] bad = {
                    {(byte) 0x80}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xFF}
                };
                byte[] insert = bad[value % bad.length];
                int at = a % (bytes.length + 1);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.write(bytes, 0, at);
                out.write(insert, 0, insert.length);
                out.write(bytes, at, bytes.length - at);
                return new Mutated(source.name(), "invalid UTF-8 inserted at byte " + at, out.toByteArray());
            }
        }
        return new Mutated(source.name(), mutation, String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
    }

    private static List<Source> sources() {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> pipelines = Files.list(TestFiles.root().resolve("pipelines"))) {
            pipelines.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.add(TestFiles.root().resolve("bad-input/definitions/valid-baseline.yaml"));
        List<Source> sources = new ArrayList<>();
        for (Path file : files) {
            try {
                sources.add(new Source(file.getFileName().toString(), Files.readAllBytes(file)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sources;
    }
}
