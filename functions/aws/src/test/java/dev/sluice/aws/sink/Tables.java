package dev.sluice.aws.sink;

import dev.sluice.emulators.LocalAws;
import java.time.Duration;
import software.amazon.awssdk.core.retry.backoff.FixedDelayBackoffStrategy;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/** The tables the sinks' emulator tests write to: on-demand, one string hash key, as the stacks make them. */
final class Tables {

    private Tables() {}

    /** Creates the table and waits until it is active; its name. */
    static String create(LocalAws aws, String name, String hashKey) {
        aws.dynamoDb()
                .createTable(b -> b.tableName(name)
                        .billingMode(BillingMode.PAY_PER_REQUEST)
                        .attributeDefinitions(AttributeDefinition.builder()
                                .attributeName(hashKey)
                                .attributeType(ScalarAttributeType.S)
                                .build())
                        .keySchema(KeySchemaElement.builder()
                                .attributeName(hashKey)
                                .keyType(KeyType.HASH)
                                .build()));
        // the SDK waiter's default first delay is 20 s; the emulator makes a table active in ~50 ms
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
                .client(aws.dynamoDb())
                .overrideConfiguration(o -> o.backoffStrategy(FixedDelayBackoffStrategy.create(Duration.ofMillis(50)))
                        .maxAttempts(400))
                .build()) {
            waiter.waitUntilTableExists(b -> b.tableName(name));
        }
        return name;
    }
}
