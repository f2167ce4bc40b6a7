package dev.sluice.core.definition;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.core.enrich.MissPolicy;

/**
 * Reference data an enrich step joins events with, held in memory by each consumer. Exactly one
 * source is named.
 *
 * @param table a DynamoDB table of this pipeline (logical name) holding the items
 * @param object an S3 key in the pipeline's lake bucket holding the items as JSON lines
 * @param key the item field that holds the join key (default {@code pk})
 * @param maxEntries most items a consumer holds (default 100,000)
 * @param refreshSeconds how old the data may get before it is read again (default 300)
 * @param onMiss what happens to an event without an item (default dead-letter)
 * @param defaultItem the item used on a miss when {@code onMiss: default} (YAML key {@code default})
 */
public record ReferenceDefinition(
        String table,
        String object,
        String key,
        Integer maxEntries,
        Integer refreshSeconds,
        MissPolicy onMiss,
        @JsonProperty("default") JsonNode defaultItem) {

    public ReferenceDefinition {
        key = key == null ? "pk" : key;
        maxEntries = maxEntries == null ? 100_000 : maxEntries;
        refreshSeconds = refreshSeconds == null ? 300 : refreshSeconds;
        onMiss = onMiss == null ? MissPolicy.DEAD_LETTER : onMiss;
    }
}
