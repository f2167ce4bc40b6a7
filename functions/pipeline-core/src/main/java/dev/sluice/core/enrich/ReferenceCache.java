package dev.sluice.core.enrich;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reference data held in memory for an enrich step, so the step itself never does I/O. It is
 * loaded whole and reloaded when older than its refresh interval — by {@link #refreshIfStale()},
 * which the batch processor calls before a batch, outside the chain. Because the stage reads a
 * stream partitioned by the join key, each consumer needs only its partition of the data; the
 * size limit guards memory when a data set outgrows what one consumer should hold.
 */
public final class ReferenceCache {

    private static final Logger LOG = LoggerFactory.getLogger(ReferenceCache.class);

    private final String name;
    private final ReferenceLoader loader;
    private final int maxEntries;
    private final Duration refresh;
    private final Clock clock;
    private volatile Map<String, JsonNode> items = Map.of();
    private volatile Instant loadedAt;

    /**
     * @param name the reference's logical name
     * @param maxEntries most items held; a load with more fails rather than silently dropping some
     * @param refresh how old the data may get before it is read again
     */
    public ReferenceCache(String name, ReferenceLoader loader, int maxEntries, Duration refresh, Clock clock) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be positive");
        }
        this.name = name;
        this.loader = loader;
        this.maxEntries = maxEntries;
        this.refresh = refresh;
        this.clock = clock;
    }

    /** The item for a key, from memory. */
    public Optional<JsonNode> get(String key) {
        return Optional.ofNullable(items.get(key));
    }

    /** How many items are held. */
    public int size() {
        return items.size();
    }

    /**
     * Loads the data if it was never loaded or is older than the refresh interval. A failed
     * reload keeps the previous data (and logs); a failed first load throws.
     */
    public void refreshIfStale() {
        Instant now = clock.instant();
        if (loadedAt != null && now.isBefore(loadedAt.plus(refresh))) {
            return;
        }
        try {
            Map<String, JsonNode> loaded = loader.loadAll();
            if (loaded.size() > maxEntries) {
                throw new IOException("reference '" + name + "' has " + loaded.size()
                        + " items, more than its maxEntries " + maxEntries);
            }
            items = Map.copyOf(new HashMap<>(loaded));
            loadedAt = now;
            LOG.info("reference {} loaded: {} items from {}", name, loaded.size(), loader.describe());
        } catch (IOException | RuntimeException e) {
            if (loadedAt == null) {
                throw new UncheckedIOException(new IOException(
                        "cannot load reference '" + name + "' from " + loader.describe() + ": " + e.getMessage(), e));
            }
            LOG.warn("reference {} not refreshed, keeping data from {}: {}", name, loadedAt, e.toString());
            loadedAt = now;
        }
    }
}
