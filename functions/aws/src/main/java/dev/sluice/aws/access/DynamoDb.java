package dev.sluice.aws.access;

/**
 * The use of the tables key that DynamoDB makes on a caller's behalf (a customer-managed key:
 * {@code kms:ViaService} {@code dynamodb.<region>.amazonaws.com}): decrypt to read items, and encrypt
 * and generate data keys to write them.
 */
public final class DynamoDb {

    /** Reading items of a table encrypted with the tables key. */
    public static final Access READ_KEY = Access.key("dynamodb", "kms:Decrypt");

    /** Writing (and reading back) items of a table encrypted with the tables key. */
    public static final Access WRITE_KEY = Access.key("dynamodb", "kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey");

    private DynamoDb() {}
}
