package dev.sluice.core.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.sluice.core.TestFiles;
import dev.sluice.core.schema.fast.FastValidator;
import dev.sluice.core.testing.Events;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The fast validator must give networknt's verdict on every document of the conformance corpus: the generated one
 * ({@link ConformanceCorpus}) and the committed edge cases ({@code conformance/edge-cases.jsonl}), each parsed both
 * with Jackson's defaults (doubles) and with exact decimals and big integers.
 */
class FastValidatorConformanceTest {

    static final ObjectMapper DOUBLES = TestFiles.MAPPER;
    static final ObjectMapper DECIMALS = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private static final SchemaCatalog REAL = TestFiles.schemas();
    private static final SchemaCatalog INLINE = SchemaCatalog.fromDirectory(resource("/conformance/schemas"), DOUBLES);

    static EventSchema schema(String name) {
        return REAL.contains(name) ? REAL.schema(name) : INLINE.schema(name);
    }

    static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(FastValidatorConformanceTest.class.getResource(name), name)
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** networknt's verdict, or null when networknt throws on the document. */
    static Boolean reference(EventSchema schema, JsonNode document) {
        try {
            return schema.referenceViolations(document).isEmpty();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The disagreement, if any, between the fast path and networknt on one document. A document networknt throws on
     * must be "not valid" to the fast path, so that {@link EventSchema#violations} still reaches networknt.
     */
    static String disagreement(EventSchema schema, JsonNode document, String label) {
        FastValidator fast = schema.fastValidator().orElseThrow();
        Boolean expected = reference(schema, document);
        boolean actual = fast.isValid(document);
        if (expected == null ? actual : actual != expected) {
            return schema.name() + " | " + label + " | networknt " + (expected == null ? "throws" : expected)
                    + ", fast " + actual + " | " + document;
        }
        return null;
    }

    @Test
    void ourSchemasCompileToFastValidators() {
        for (String name : List.of(
                ConformanceCorpus.PAYMENT,
                ConformanceCorpus.CLICK,
                ConformanceCorpus.KEYWORDS,
                ConformanceCorpus.NUMBERS)) {
            assertThat(schema(name).fastValidator()).as(name).isPresent();
        }
    }

    @Test
    void aSchemaWithUnsupportedKeywordsIsLeftToNetworkntAlone() {
        EventSchema unsupported = INLINE.schema("conformance.unsupported.v1");

        assertThat(unsupported.fastValidator()).isEmpty();
        assertThat(unsupported.violations(ConformanceCorpus.parse("{\"currency\":\"EUR\",\"amount\":1}")))
                .isEmpty();
        assertThat(unsupported.violations(ConformanceCorpus.parse("{\"currency\":\"eur\",\"amount\":1}")))
                .singleElement()
                .satisfies(v -> assertThat(v).startsWith("$.currency").endsWith("(pattern)"));
        assertThat(unsupported.violations(ConformanceCorpus.parse("{\"currency\":\"EUR\"}")))
                .singleElement()
                .satisfies(v -> assertThat(v).contains("amount").endsWith("(required)"));
    }

    @Test
    void everyGeneratedDocumentGetsNetworkntsVerdict() {
        List<ConformanceCorpus.Case> corpus = ConformanceCorpus.all();
        List<String> disagreements = new ArrayList<>();
        int valid = 0;
        int invalid = 0;
        int throwing = 0;
        for (ConformanceCorpus.Case c : corpus) {
            EventSchema schema = schema(c.schema());
            for (ObjectMapper mapper : List.of(DOUBLES, DECIMALS)) {
                JsonNode document = read(mapper, c.json());
                String label = c.label() + (mapper == DOUBLES ? "" : " (decimals)");
                String disagreement = disagreement(schema, document, label);
                if (disagreement != null) {
                    disagreements.add(disagreement);
                }
            }
            Boolean verdict = reference(schema, read(DOUBLES, c.json()));
            if (verdict == null) {
                throwing++;
            } else if (verdict) {
                valid++;
            } else {
                invalid++;
            }
        }
        System.out.printf(
                "conformance corpus: %d documents (%d valid, %d invalid, %d networknt errors), each parsed twice;"
                        + " %d disagreements%n",
                corpus.size(), valid, invalid, throwing, disagreements.size());
        disagreements.forEach(d -> System.out.println("  DISAGREEMENT " + d));

        assertThat(disagreements).isEmpty();
        assertThat(valid).isGreaterThanOrEqualTo(100);
        assertThat(invalid).isGreaterThanOrEqualTo(100);
    }

    @Test
    void committedEdgeCasesKeepNetworkntsRecordedVerdict() throws IOException {
        List<String> problems = new ArrayList<>();
        int lines = 0;
        for (String line : edgeCaseLines()) {
            lines++;
            for (ObjectMapper mapper : List.of(DOUBLES, DECIMALS)) {
                JsonNode entry = read(mapper, line);
                EventSchema schema = schema(entry.get("schema").textValue());
                JsonNode document = entry.get("doc");
                String label = entry.get("note").textValue() + (mapper == DOUBLES ? "" : " (decimals)");
                JsonNode recorded = entry.get(mapper == DOUBLES ? "valid" : "validAsDecimals");
                if (recorded == null) {
                    recorded = entry.get("valid");
                }
                String disagreement = disagreement(schema, document, label);
                if (disagreement != null) {
                    problems.add(disagreement);
                }
                Boolean verdict = reference(schema, document);
                // a recorded null: networknt throws on the document (e.g. an infinite double under multipleOf)
                Boolean expected = recorded.isNull() ? null : recorded.booleanValue();
                if (!Objects.equals(verdict, expected)) {
                    problems.add("networknt changed its verdict: " + label + " was " + recorded + ", now " + verdict);
                }
            }
        }
        problems.forEach(p -> System.out.println("  EDGE CASE " + p));

        assertThat(lines).isGreaterThanOrEqualTo(40);
        assertThat(problems).isEmpty();
    }

    @Test
    void violationsNeverNeedsToOverruleTheFastPath() throws IOException {
        long before = EventSchema.fastPathDisagreements();
        int checked = 0;
        for (ConformanceCorpus.Case c : ConformanceCorpus.all()) {
            EventSchema schema = schema(c.schema());
            for (ObjectMapper mapper : List.of(DOUBLES, DECIMALS)) {
                JsonNode document = read(mapper, c.json());
                if (reference(schema, document) != null) {
                    assertThat(schema.violations(document)).isEqualTo(schema.referenceViolations(document));
                    checked++;
                }
            }
        }
        for (String line : edgeCaseLines()) {
            JsonNode entry = read(DOUBLES, line);
            EventSchema schema = schema(entry.get("schema").textValue());
            if (reference(schema, entry.get("doc")) != null) {
                assertThat(schema.violations(entry.get("doc"))).isEqualTo(schema.referenceViolations(entry.get("doc")));
                checked++;
            }
        }

        assertThat(checked).isGreaterThan(1000);
        assertThat(EventSchema.fastPathDisagreements() - before).isZero();
    }

    @Test
    void theFastPathAnswersValidEventsAndNetworkntStillNamesViolations() throws IOException {
        EventSchema payments = schema(ConformanceCorpus.PAYMENT);
        JsonNode valid = Events.fixtureNode("payment-valid.json");

        assertThat(payments.fastValidator().orElseThrow().isValid(valid)).isTrue();
        assertThat(payments.violations(valid)).isEmpty();
        assertThat(payments.violations(Events.fixtureNode("payment-negative-amount.json")))
                .containsExactly("$.payload.amount: must have an exclusive minimum value of 0 (exclusiveMinimum)");
    }

    static List<String> edgeCaseLines() throws IOException {
        List<String> lines = new ArrayList<>();
        try (InputStream in = FastValidatorConformanceTest.class.getResourceAsStream("/conformance/edge-cases.jsonl");
                BufferedReader reader =
                        new BufferedReader(new InputStreamReader(Objects.requireNonNull(in), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (!line.isBlank() && !line.startsWith("//")) {
                    lines.add(line);
                }
            }
        }
        return lines;
    }

    static JsonNode read(ObjectMapper mapper, String json) {
        try {
            return mapper.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException(json, e);
        }
    }
}
