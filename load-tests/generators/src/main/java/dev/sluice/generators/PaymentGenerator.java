package dev.sluice.generators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Synthetic card payments ({@code payments.transaction.v1}), deterministic for a seed: the same
 * seed gives the same events byte for byte. A configurable share is invalid on purpose — malformed
 * JSON, a negative amount, a missing timestamp, an unknown currency — each labelled with the
 * reason code the pipeline must give it.
 */
public final class PaymentGenerator {

    private static final String[] CURRENCIES = {"EUR", "EUR", "EUR", "EUR", "USD", "GBP", "CHF", "SEK", "PLN"};
    private static final String[] COUNTRIES = {"NL", "NL", "NL", "BE", "DE", "FR", "GB", "ES", "IT", "PL"};
    private static final String[] CHANNELS = {"POS", "CONTACTLESS", "CONTACTLESS", "ECOMMERCE", "ATM", "MOTO"};
    private static final String[][] MERCHANTS = {
        {"Albert Heijn", "5411"}, {"Jumbo", "5411"}, {"NS Reizigers", "4111"}, {"Shell", "5541"},
        {"Bol.com", "5399"}, {"HEMA", "5311"}, {"IKEA", "5712"}, {"Starbucks", "5814"},
        {"Booking.com", "4722"}, {"Kruidvat", "5912"}, {"MediaMarkt", "5732"}, {"Thuisbezorgd", "5812"}
    };
    private static final String[] FIRST = {"anna", "bram", "chloe", "daan", "emma", "finn", "julia", "lucas", "sara"};
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final SplittableRandom random;
    private final ObjectMapper mapper = new ObjectMapper();
    private final int customers;
    private final double invalidShare;
    private final Instant start;
    private final String runId;
    private long sequence;

    /**
     * @param seed makes the stream of events reproducible
     * @param customers how many distinct customers pay
     * @param invalidShare fraction of events that are invalid on purpose, 0 to 1
     * @param start event time of the first payment; later ones follow a few hundred ms apart
     */
    public PaymentGenerator(long seed, int customers, double invalidShare, Instant start) {
        if (customers < 1) {
            throw new IllegalArgumentException("customers must be positive");
        }
        if (invalidShare < 0 || invalidShare > 1) {
            throw new IllegalArgumentException("invalidShare must be between 0 and 1");
        }
        this.random = new SplittableRandom(seed);
        this.customers = customers;
        this.invalidShare = invalidShare;
        this.start = start;
        this.runId = Long.toHexString(seed & 0xffffffL);
    }

    /** The next event. */
    public GeneratedEvent next() {
        long n = sequence++;
        String eventId = String.format(Locale.ROOT, "pay-%s-%08d", runId, n);
        int customer = customer();
        String customerId = String.format(Locale.ROOT, "cust-%07d", customer);
        Instant occurredAt = start.plusMillis(n * 250 + random.nextInt(250));
        ObjectNode event = payment(eventId, customerId, customer, occurredAt);
        String reason = null;
        if (random.nextDouble() < invalidShare) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    byte[] whole = event.toString().getBytes(StandardCharsets.UTF_8);
                    byte[] cut = java.util.Arrays.copyOf(whole, whole.length / 2);
                    return new GeneratedEvent(eventId, customerId, cut, "MALFORMED_JSON");
                }
                case 1 -> {
                    ((ObjectNode) event.get("payload")).put("amount", new BigDecimal("-12.50"));
                    reason = "SCHEMA_INVALID";
                }
                case 2 -> {
                    event.remove("occurredAt");
                    reason = "MISSING_TIMESTAMP";
                }
                default -> {
                    ((ObjectNode) event.get("payload")).put("currency", "XXX");
                    reason = "SCHEMA_INVALID";
                }
            }
        }
        return new GeneratedEvent(eventId, customerId, event.toString().getBytes(StandardCharsets.UTF_8), reason);
    }

    /** Hot customers pay more often: a few customers make many of the payments. */
    private int customer() {
        double u = random.nextDouble();
        return (int) Math.min(customers - 1, Math.floor(customers * u * u * u));
    }

    private ObjectNode payment(String eventId, String customerId, int customer, Instant occurredAt) {
        ObjectNode event = mapper.createObjectNode();
        event.put("eventId", eventId);
        event.put("type", "payments.transaction.v1");
        event.put("source", "card-switch-eu-1");
        event.put("occurredAt", RFC3339.format(occurredAt));
        event.put("key", customerId);
        ObjectNode payload = event.putObject("payload");
        payload.put("customerId", customerId);
        payload.put("cardNumber", cardNumber(customer));
        payload.put("email", FIRST[customer % FIRST.length] + "." + customer + "@example.com");
        payload.put("amount", amount());
        payload.put("currency", CURRENCIES[random.nextInt(CURRENCIES.length)]);
        String[] merchant = MERCHANTS[random.nextInt(MERCHANTS.length)];
        ObjectNode m = payload.putObject("merchant");
        m.put("id", String.format(Locale.ROOT, "m-%06d", random.nextInt(1_000_000)));
        m.put("name", merchant[0]);
        m.put("category", merchant[1]);
        payload.put("country", COUNTRIES[random.nextInt(COUNTRIES.length)]);
        payload.put("channel", CHANNELS[random.nextInt(CHANNELS.length)]);
        return event;
    }

    /** Mostly small amounts, a long tail of large ones; two decimals. */
    private BigDecimal amount() {
        double euros = Math.exp(random.nextDouble() * 7.5) - 0.95;
        return BigDecimal.valueOf(Math.max(0.05, euros)).setScale(2, RoundingMode.HALF_UP);
    }

    /** A 16-digit card number with a valid Luhn check digit, stable per customer. */
    static String cardNumber(int customer) {
        String body = String.format(Locale.ROOT, "4%014d", (customer * 7919L) % 100_000_000_000_000L);
        int sum = 0;
        for (int i = 0; i < body.length(); i++) {
            int digit = body.charAt(body.length() - 1 - i) - '0';
            if (i % 2 == 0) {
                digit *= 2;
                if (digit > 9) {
                    digit -= 9;
                }
            }
            sum += digit;
        }
        return body + (10 - sum % 10) % 10;
    }
}
