package dev.sluice.kcl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.kcl.config.KclSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The worker's settings table in {@code functions/kcl/README.md} is {@link KclSettings}: every
 * setting documented under its property and environment names, nothing documented that the worker
 * does not read, and every default the code declares written in the table.
 */
class KclSettingsDocsTest {

    private static final Pattern ROW =
            Pattern.compile("^\\| `(sluice\\.kcl\\.[a-z-]+)` \\| `([A-Z_]+)` \\| ([^|]+) \\|");

    @Test
    void theReadmeTableListsExactlyTheSettingsTheWorkerReads() throws IOException {
        Map<String, String[]> documented = documented();
        Map<String, String> declared = declared();

        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(declared.keySet());
        documented.forEach((property, cells) -> {
            assertThat(cells[0])
                    .as("environment variable of %s", property)
                    .isEqualTo(
                            property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
            String codeDefault = declared.get(property);
            if (codeDefault != null) {
                assertThat(cells[1]).as("default of %s", property).contains(codeDefault);
            }
        });
    }

    /** Property → default the code declares ({@code null} when none). */
    private static Map<String, String> declared() {
        String prefix = KclSettings.class.getAnnotation(ConfigMapping.class).prefix();
        Map<String, String> declared = new LinkedHashMap<>();
        for (Method method : KclSettings.class.getDeclaredMethods()) {
            if (method.isDefault()
                    || method.isSynthetic()
                    || java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            WithName name = method.getAnnotation(WithName.class);
            String key = name != null ? name.value() : kebab(method.getName());
            WithDefault value = method.getAnnotation(WithDefault.class);
            declared.put(prefix + "." + key, value == null ? null : value.value());
        }
        return declared;
    }

    /** Property → [environment variable, default cell] from the README's table. */
    private static Map<String, String[]> documented() throws IOException {
        Path readme = Path.of(System.getProperty("sluice.root", "../..")).resolve("functions/kcl/README.md");
        Map<String, String[]> rows = new LinkedHashMap<>();
        List<String> duplicates = new ArrayList<>();
        for (String line : Files.readAllLines(readme)) {
            Matcher m = ROW.matcher(line);
            if (m.find()
                    && rows.put(m.group(1), new String[] {m.group(2), m.group(3).trim()}) != null) {
                duplicates.add(m.group(1));
            }
        }
        assertThat(duplicates).as("settings documented twice").isEmpty();
        return rows;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
