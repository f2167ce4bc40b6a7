package dev.sluice.aws.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.aws.access.Access;
import dev.sluice.aws.access.DynamoDb;
import dev.sluice.core.enrich.ReferenceLoader;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Reads a whole DynamoDB table of reference items (scalar attributes become JSON fields). */
public final class DynamoDbReferenceLoader implements ReferenceLoader {

    /** What the loader calls: {@code Scan} of the reference {@code table}. */
    public static List<Access> access(String table) {
        return List.of(Access.table(table, "dynamodb:Scan"), DynamoDb.READ_KEY);
    }

    private final DynamoDbClient dynamoDb;
    private final String table;
    private final String keyAttribute;
    private final ObjectMapper mapper;

    public DynamoDbReferenceLoader(DynamoDbClient dynamoDb, String table, String keyAttribute, ObjectMapper mapper) {
        this.dynamoDb = dynamoDb;
        this.table = table;
        this.keyAttribute = keyAttribute;
        this.mapper = mapper;
    }

    @Override
    public Map<String, JsonNode> loadAll() {
        Map<String, JsonNode> items = new HashMap<>();
        for (Map<String, AttributeValue> item :
                dynamoDb.scanPaginator(b -> b.tableName(table)).items()) {
            AttributeValue key = item.get(keyAttribute);
            if (key != null && key.s() != null) {
                items.put(key.s(), json(item));
            }
        }
        return items;
    }

    private JsonNode json(Map<String, AttributeValue> item) {
        ObjectNode node = mapper.createObjectNode();
        item.forEach((name, value) -> {
            if (value.s() != null) {
                node.put(name, value.s());
            } else if (value.n() != null) {
                node.put(name, new java.math.BigDecimal(value.n()));
            } else if (value.bool() != null) {
                node.put(name, value.bool());
            }
        });
        return node;
    }

    @Override
    public String describe() {
        return "dynamodb table " + table;
    }
}
