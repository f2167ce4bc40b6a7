package dev.sluice.core.stage;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.core.enrich.ReferenceCache;
import dev.sluice.core.pii.SecretProvider;
import dev.sluice.core.schema.SchemaCatalog;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;

/**
 * What a chain needs from its host to compile: schemas, the JSON mapper, a clock, secrets (for
 * tokenization keys) and the reference caches of its enrich steps. The host (Lambda handler, KCL
 * worker, test) builds the adapters; the chain only reads from memory.
 *
 * @param schemas compiled event schemas
 * @param mapper the JSON mapper (decimals as BigDecimal)
 * @param clock time for {@code ingestedAt}
 * @param secrets tokenization keys; needed only by stages with a mask step that tokenizes
 * @param references reference caches by reference name; needed only by stages with enrich steps
 */
public record StageServices(
        SchemaCatalog schemas,
        ObjectMapper mapper,
        Clock clock,
        SecretProvider secrets,
        Map<String, ReferenceCache> references) {

    public StageServices {
        Objects.requireNonNull(schemas, "schemas");
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(clock, "clock");
        references = references == null ? Map.of() : Map.copyOf(references);
    }

    /** Services for stages that neither tokenize nor enrich. */
    public StageServices(SchemaCatalog schemas, ObjectMapper mapper, Clock clock) {
        this(schemas, mapper, clock, null, Map.of());
    }
}
