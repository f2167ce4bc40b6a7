package dev.sluice.planner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Unit prices for one region, read from a JSON data file (the bundled one is {@code prices/us-east-1.json}).
 * Every price carries the pricing page it comes from and whether that page showed the figure.
 */
public final class PriceTable {

    /** The bundled table, on the classpath. */
    public static final String BUNDLED = "prices/us-east-1.json";

    public static final String KINESIS_SHARD_HOUR = "kinesis.shardHour";
    public static final String KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION = "kinesis.putPayloadUnitsPerMillion";
    public static final String KINESIS_EXTENDED_RETENTION_SHARD_HOUR = "kinesis.extendedRetentionShardHour";
    public static final String KINESIS_EFO_CONSUMER_SHARD_HOUR = "kinesis.enhancedFanOutConsumerShardHour";
    public static final String KINESIS_EFO_DATA_RETRIEVAL_GB = "kinesis.enhancedFanOutDataRetrievalGb";
    public static final String LAMBDA_REQUESTS_PER_MILLION = "lambda.requestsPerMillion";
    public static final String LAMBDA_ARM64_GB_SECOND = "lambda.arm64GbSecond";
    public static final String DYNAMODB_WRU_PER_MILLION = "dynamodb.onDemandWriteRequestUnitsPerMillion";
    public static final String S3_STORAGE_GB_MONTH = "s3.standardStorageGbMonth";
    public static final String S3_PUT_PER_THOUSAND = "s3.putRequestsPerThousand";
    public static final String SQS_REQUESTS_PER_MILLION = "sqs.standardRequestsPerMillion";
    public static final String KMS_REQUESTS_PER_10K = "kms.requestsPer10k";
    public static final String KMS_KEY_MONTH = "kms.keyMonth";
    /** Optional: used by the load report, not by the planner. */
    public static final String DYNAMODB_RRU_PER_MILLION = "dynamodb.onDemandReadRequestUnitsPerMillion";

    /** Optional: {@code ./sluice plan --dynamodb-capacity provisioned}. */
    public static final String DYNAMODB_WCU_HOUR = "dynamodb.provisionedWriteCapacityUnitHour";
    /** Optional: {@code ./sluice plan --dynamodb-capacity provisioned}. */
    public static final String DYNAMODB_RCU_HOUR = "dynamodb.provisionedReadCapacityUnitHour";
    /** Optional: KCL workers as Fargate tasks in {@code ./sluice plan}. */
    public static final String FARGATE_ARM64_VCPU_HOUR = "fargate.arm64VcpuHour";
    /** Optional: KCL workers as Fargate tasks in {@code ./sluice plan}. */
    public static final String FARGATE_ARM64_GB_HOUR = "fargate.arm64GbHour";

    public static final String S3_GET_PER_THOUSAND = "s3.getRequestsPerThousand";
    public static final String FIREHOSE_INGESTION_GB = "firehose.ingestionGb";

    /** Every price the cost model uses; a table lacking one is refused. */
    public static final List<String> REQUIRED = List.of(
            KINESIS_SHARD_HOUR,
            KINESIS_PUT_PAYLOAD_UNITS_PER_MILLION,
            KINESIS_EXTENDED_RETENTION_SHARD_HOUR,
            KINESIS_EFO_CONSUMER_SHARD_HOUR,
            KINESIS_EFO_DATA_RETRIEVAL_GB,
            LAMBDA_REQUESTS_PER_MILLION,
            LAMBDA_ARM64_GB_SECOND,
            DYNAMODB_WRU_PER_MILLION,
            S3_STORAGE_GB_MONTH,
            S3_PUT_PER_THOUSAND,
            SQS_REQUESTS_PER_MILLION,
            KMS_REQUESTS_PER_10K,
            KMS_KEY_MONTH);

    /** One unit price and where it comes from. */
    public record Price(String name, double price, String unit, String source, boolean verified, String note) {}

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String origin;
    private final String region;
    private final String currency;
    private final LocalDate asOf;
    private final double hoursPerMonth;
    private final Map<String, Price> prices;

    private PriceTable(
            String origin,
            String region,
            String currency,
            LocalDate asOf,
            double hoursPerMonth,
            Map<String, Price> prices) {
        this.origin = origin;
        this.region = region;
        this.currency = currency;
        this.asOf = asOf;
        this.hoursPerMonth = hoursPerMonth;
        this.prices = Collections.unmodifiableMap(prices);
    }

    /** The table bundled with the planner. */
    public static PriceTable bundled() {
        try (InputStream in = PriceTable.class.getClassLoader().getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new PriceTableException("price table " + BUNDLED + " is not on the classpath");
            }
            return parse(BUNDLED, in.readAllBytes());
        } catch (IOException e) {
            throw new PriceTableException("price table " + BUNDLED + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** A table from a file. */
    public static PriceTable load(Path file) {
        try {
            return parse(file.toString(), Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new PriceTableException("price table " + file + ": no such file", e);
        } catch (IOException e) {
            throw new PriceTableException("price table " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    static PriceTable parse(String origin, byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new PriceTableException("price table " + origin + " is not valid JSON: " + firstLine(e), e);
        }
        if (root == null || !root.isObject()) {
            throw new PriceTableException("price table " + origin + " must be a JSON object");
        }
        String region = text(origin, root, "region", "");
        String currency = text(origin, root, "currency", "");
        String asOfText = text(origin, root, "asOf", "");
        LocalDate asOf;
        try {
            asOf = LocalDate.parse(asOfText);
        } catch (DateTimeParseException e) {
            throw new PriceTableException(
                    "price table " + origin + ": asOf must be a date like 2026-11-30, got '" + asOfText + "'");
        }
        double hoursPerMonth = root.path("hoursPerMonth").asDouble(730);
        if (!(hoursPerMonth > 0)) {
            throw new PriceTableException("price table " + origin + ": hoursPerMonth must be positive");
        }
        JsonNode pricesNode = root.get("prices");
        if (pricesNode == null || !pricesNode.isObject()) {
            throw new PriceTableException("price table " + origin + " has no \"prices\" object");
        }
        Map<String, Price> prices = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : pricesNode.properties()) {
            prices.put(entry.getKey(), price(origin, entry.getKey(), entry.getValue()));
        }
        for (String required : REQUIRED) {
            if (!prices.containsKey(required)) {
                throw new PriceTableException("price table " + origin + " has no price " + required);
            }
        }
        return new PriceTable(origin, region, currency, asOf, hoursPerMonth, prices);
    }

    private static Price price(String origin, String name, JsonNode node) {
        String where = "price table " + origin + ": " + name;
        if (!node.isObject()) {
            throw new PriceTableException(where + " must be an object with price, unit, source and verified");
        }
        JsonNode value = node.get("price");
        if (value == null || !value.isNumber() || !Double.isFinite(value.asDouble()) || value.asDouble() < 0) {
            throw new PriceTableException(where + ": price must be a number of zero or more");
        }
        String source = text(origin, node, "source", name + ".");
        if (!source.startsWith("https://")) {
            throw new PriceTableException(where + ": source must be the https:// address of the pricing page");
        }
        JsonNode verified = node.get("verified");
        if (verified == null || !verified.isBoolean()) {
            throw new PriceTableException(where + ": verified must be true or false");
        }
        return new Price(
                name,
                value.asDouble(),
                text(origin, node, "unit", name + "."),
                source,
                verified.asBoolean(),
                node.path("note").asText(""));
    }

    private static String text(String origin, JsonNode node, String field, String prefix) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new PriceTableException("price table " + origin + ": " + prefix + field + " is missing");
        }
        return value.asText();
    }

    private static String firstLine(IOException e) {
        String message = String.valueOf(
                e instanceof com.fasterxml.jackson.core.JacksonException j ? j.getOriginalMessage() : e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    public String origin() {
        return origin;
    }

    public String region() {
        return region;
    }

    public String currency() {
        return currency;
    }

    public LocalDate asOf() {
        return asOf;
    }

    public double hoursPerMonth() {
        return hoursPerMonth;
    }

    public Map<String, Price> prices() {
        return prices;
    }

    /**
     * The unit price called {@code name}: one of {@link #REQUIRED}, or an optional one a figure asks
     * for (a table without it is refused then, naming the price).
     */
    public double price(String name) {
        Price price = prices.get(name);
        if (price == null) {
            throw new PriceTableException("price table " + origin + " has no price " + name);
        }
        return price.price();
    }
}
