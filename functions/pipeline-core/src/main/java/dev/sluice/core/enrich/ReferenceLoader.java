package dev.sluice.core.enrich;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;

/**
 * Reads a whole reference data set (a DynamoDB table, an S3 object of JSON lines) keyed by its
 * join key. Adapters at the edge implement it; the core only caches what it returns.
 */
public interface ReferenceLoader {

    /** Every item, by key. */
    Map<String, JsonNode> loadAll() throws IOException;

    /** Where the data comes from, for logs and errors. */
    String describe();
}
