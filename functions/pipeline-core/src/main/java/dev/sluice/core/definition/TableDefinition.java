package dev.sluice.core.definition;

/**
 * A DynamoDB serving table holding the latest state per key.
 *
 * @param key the event field (top-level envelope field, or a dotted path into it) whose value is
 *     the item's partition key
 */
public record TableDefinition(String key) {}
