package dev.sluice.generators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Synthetic card payments ({@code payments.transaction.v1}), deterministic for a seed: the same
 * seed and settings give the same events byte for byte.
 *
 * <ul>
 *   <li><b>Customers</b>: 1,000,000 by default; who pays is Zipf-distributed over them ({@link
 *       ZipfSampler}, exponent 0.9 by default), so a few hot customers pay far more often than the
 *       rest — {@code cust-0000000} most of all. A customer keeps one card, one e-mail address and
 *       one home country.
 *   <li><b>Merchants and amounts</b>: a catalogue of merchant kinds with their category code
 *       (MCC), channel and a log-normal amount around a typical basket (a coffee about 4, groceries
 *       about 35, a flight about 350; cash withdrawals in round notes); most payments are domestic,
 *       paid in the merchant country's currency; a merchant id is stable per branch.
 *   <li><b>Event time</b>: by default a payment every ~250 ms from {@code start}; {@link
 *       Builder#simulateDay(double)} makes {@code occurredAt} follow the {@link DailyCurve}
 *       (quiet nights, an evening peak) at a given number of payments a day; {@link
 *       #next(Instant)} stamps a time the caller chooses (the load harness stamps the moment it
 *       sends).
 *   <li><b>Invalid events</b>: a configurable share is invalid on purpose — malformed JSON, a
 *       negative amount, a missing timestamp, an unknown currency — each labelled with the reason
 *       code the pipeline must give it.
 * </ul>
 */
public final class PaymentGenerator {

    /** Customers when none are given: the founding documents' bank. */
    public static final int DEFAULT_CUSTOMERS = 1_000_000;
    /** The skew of who pays when none is given. */
    public static final double DEFAULT_ZIPF_EXPONENT = 0.9;

    private static final String[] COUNTRIES = {"NL", "NL", "NL", "NL", "BE", "DE", "DE", "FR", "GB", "ES", "IT", "PL"};
    private static final String[] ABROAD = {"NL", "BE", "DE", "FR", "GB", "ES", "IT", "PL", "SE", "CH", "US", "DK"};
    private static final String[] FIRST = {"anna", "bram", "chloe", "daan", "emma", "finn", "julia", "lucas", "sara"};

    /** Merchant kinds: name, MCC, median amount (in EUR-like major units), log-normal sigma, channels. */
    private record Merchant(String name, String mcc, double median, double sigma, String[] channels) {}

    private static final String[] IN_STORE = {"CONTACTLESS", "CONTACTLESS", "CONTACTLESS", "POS"};
    private static final String[] ONLINE = {"ECOMMERCE", "ECOMMERCE", "ECOMMERCE", "ECOMMERCE", "MOTO"};
    private static final Merchant[] MERCHANTS = {
        new Merchant("Albert Heijn", "5411", 28, 0.8, IN_STORE),
        new Merchant("Jumbo", "5411", 32, 0.8, IN_STORE),
        new Merchant("Lidl", "5411", 24, 0.8, IN_STORE),
        new Merchant("Starbucks", "5814", 4.6, 0.4, IN_STORE),
        new Merchant("Bakkerij de Hoek", "5462", 6.5, 0.5, IN_STORE),
        new Merchant("NS Reizigers", "4111", 9, 0.7, IN_STORE),
        new Merchant("Shell", "5541", 62, 0.4, IN_STORE),
        new Merchant("HEMA", "5311", 14, 0.7, IN_STORE),
        new Merchant("Kruidvat", "5912", 12, 0.6, IN_STORE),
        new Merchant("IKEA", "5712", 95, 1.0, IN_STORE),
        new Merchant("MediaMarkt", "5732", 140, 1.1, IN_STORE),
        new Merchant("Thuisbezorgd", "5812", 27, 0.4, ONLINE),
        new Merchant("Bol.com", "5399", 38, 0.9, ONLINE),
        new Merchant("Zalando", "5651", 70, 0.7, ONLINE),
        new Merchant("Spotify", "5815", 11, 0.2, ONLINE),
        new Merchant("Booking.com", "4722", 240, 0.9, ONLINE),
        new Merchant("KLM", "4511", 350, 0.8, ONLINE),
    };
    private static final Merchant ATM = new Merchant("Geldmaat", "6011", 0, 0, new String[] {"ATM"});
    private static final int[] NOTES = {20, 20, 50, 50, 50, 100, 100, 200};
    /** Merchant kinds weighted by how often people pay there (groceries and coffee most). */
    private static final int[] MERCHANT_WEIGHTS = {16, 12, 10, 10, 6, 6, 5, 5, 5, 2, 2, 5, 5, 3, 2, 1, 1};

    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final SplittableRandom random;
    private final ObjectMapper mapper = new ObjectMapper();
    private final int customers;
    private final ZipfSampler who;
    private final double invalidShare;
    private final Instant start;
    private final DailyCurve curve;
    private final double eventsPerDay;
    private final String runId;
    private final int merchantWeightTotal = Arrays.stream(MERCHANT_WEIGHTS).sum();
    private long sequence;
    private double simulatedMillis;

    /**
     * @param seed makes the stream of events reproducible
     * @param customers how many distinct customers pay
     * @param invalidShare fraction of events that are invalid on purpose, 0 to 1
     * @param start event time of the first payment; later ones follow a few hundred ms apart
     */
    public PaymentGenerator(long seed, int customers, double invalidShare, Instant start) {
        this(builder(seed).customers(customers).invalidShare(invalidShare).start(start));
    }

    private PaymentGenerator(Builder b) {
        if (b.customers < 1) {
            throw new IllegalArgumentException("customers must be positive");
        }
        if (b.invalidShare < 0 || b.invalidShare > 1) {
            throw new IllegalArgumentException("invalidShare must be between 0 and 1");
        }
        if (b.curve != null && !(b.eventsPerDay > 0)) {
            throw new IllegalArgumentException("eventsPerDay must be above 0");
        }
        this.random = new SplittableRandom(b.seed);
        this.customers = b.customers;
        this.who = new ZipfSampler(b.customers, b.zipfExponent);
        this.invalidShare = b.invalidShare;
        this.start = Objects.requireNonNull(b.start, "start");
        this.curve = b.curve;
        this.eventsPerDay = b.eventsPerDay;
        this.runId = Long.toHexString(b.seed & 0xffffffL);
    }

    /** Settings, each with a default: 1,000,000 customers, exponent 0.9, no invalid events. */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /** The next event, at the generator's own event time (every ~250 ms, or on the daily curve). */
    public GeneratedEvent next() {
        Instant occurredAt;
        if (curve == null) {
            occurredAt = start.plusMillis(sequence * 250 + random.nextInt(250));
        } else {
            // a Poisson process whose rate follows the curve: exponential gaps at the current rate
            occurredAt = start.plusMillis((long) simulatedMillis);
            double perMilli = eventsPerDay / 86_400_000.0 * curve.multiplier(occurredAt);
            simulatedMillis += -Math.log(1 - random.nextDouble()) / perMilli;
        }
        return next(occurredAt);
    }

    /** The next event, stamped with the given event time. */
    public GeneratedEvent next(Instant occurredAt) {
        long n = sequence++;
        String eventId = String.format(Locale.ROOT, "pay-%s-%08d", runId, n);
        int customer = who.sample(random) - 1;
        String customerId = String.format(Locale.ROOT, "cust-%07d", customer);
        ObjectNode event = payment(eventId, customerId, customer, occurredAt);
        String reason = null;
        if (random.nextDouble() < invalidShare) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    byte[] whole = event.toString().getBytes(StandardCharsets.UTF_8);
                    byte[] cut = Arrays.copyOf(whole, whole.length / 2);
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

    public int customers() {
        return customers;
    }

    private ObjectNode payment(String eventId, String customerId, int customer, Instant occurredAt) {
        String home = COUNTRIES[(int) Math.floorMod(mix(customer), (long) COUNTRIES.length)];
        Merchant merchant = merchant();
        String country = random.nextInt(100) < 88 ? home : ABROAD[random.nextInt(ABROAD.length)];
        String channel = merchant.channels()[random.nextInt(merchant.channels().length)];
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
        String currency = currency(country);
        payload.put("amount", amount(merchant, currency));
        payload.put("currency", currency);
        ObjectNode m = payload.putObject("merchant");
        int branch = random.nextInt(200);
        m.put(
                "id",
                String.format(
                        Locale.ROOT,
                        "m-%06d",
                        Math.floorMod(
                                mix(merchant.name().hashCode() * 31L + country.hashCode() * 1_000L + branch),
                                1_000_000L)));
        m.put("name", merchant.name());
        m.put("category", merchant.mcc());
        payload.put("country", country);
        payload.put("channel", channel);
        return event;
    }

    private Merchant merchant() {
        if (random.nextInt(100) < 4) {
            return ATM;
        }
        int roll = random.nextInt(merchantWeightTotal);
        for (int i = 0; i < MERCHANTS.length; i++) {
            roll -= MERCHANT_WEIGHTS[i];
            if (roll < 0) {
                return MERCHANTS[i];
            }
        }
        return MERCHANTS[0];
    }

    /** The currency a merchant in a country charges in. */
    static String currency(String country) {
        return switch (country) {
            case "GB" -> "GBP";
            case "PL" -> "PLN";
            case "SE" -> "SEK";
            case "CH" -> "CHF";
            case "US" -> "USD";
            case "DK" -> "DKK";
            default -> "EUR";
        };
    }

    /** Units of a currency worth about one euro, to keep baskets comparable across currencies. */
    private static double perEuro(String currency) {
        return switch (currency) {
            case "GBP" -> 0.85;
            case "PLN" -> 4.3;
            case "SEK" -> 11.2;
            case "CHF" -> 0.95;
            case "USD" -> 1.08;
            case "DKK" -> 7.46;
            default -> 1.0;
        };
    }

    /** Log-normal around the merchant's typical basket, two decimals; cash in round notes. */
    private BigDecimal amount(Merchant merchant, String currency) {
        double value;
        if (merchant == ATM) {
            value = Math.round(NOTES[random.nextInt(NOTES.length)] * perEuro(currency) / 10.0) * 10.0;
        } else {
            double gaussian = gaussian();
            value = merchant.median() * Math.exp(merchant.sigma() * gaussian) * perEuro(currency);
        }
        value = Math.min(999_999.0, Math.max(0.5, value));
        return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP);
    }

    private double gaussian() {
        // Box-Muller; one of the pair is enough here
        double u1 = 1 - random.nextDouble();
        double u2 = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    private static long mix(long n) {
        long z = n * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
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

    /** A generator's settings. */
    public static final class Builder {
        private final long seed;
        private int customers = DEFAULT_CUSTOMERS;
        private double zipfExponent = DEFAULT_ZIPF_EXPONENT;
        private double invalidShare;
        private Instant start = Instant.parse("2026-11-30T00:00:00Z");
        private DailyCurve curve;
        private double eventsPerDay;

        private Builder(long seed) {
            this.seed = seed;
        }

        public Builder customers(int customers) {
            this.customers = customers;
            return this;
        }

        /** The skew of who pays (Zipf exponent, above 0). */
        public Builder zipfExponent(double zipfExponent) {
            this.zipfExponent = zipfExponent;
            return this;
        }

        public Builder invalidShare(double invalidShare) {
            this.invalidShare = invalidShare;
            return this;
        }

        /** Event time of the first payment (with {@link #simulateDay}: where the simulated time starts). */
        public Builder start(Instant start) {
            this.start = start;
            return this;
        }

        /** {@code occurredAt} follows the UTC {@link DailyCurve} at this many payments a day. */
        public Builder simulateDay(double eventsPerDay) {
            return simulateDay(DailyCurve.utc(), eventsPerDay);
        }

        public Builder simulateDay(DailyCurve curve, double eventsPerDay) {
            this.curve = Objects.requireNonNull(curve, "curve");
            this.eventsPerDay = eventsPerDay;
            return this;
        }

        public PaymentGenerator build() {
            return new PaymentGenerator(this);
        }
    }
}
