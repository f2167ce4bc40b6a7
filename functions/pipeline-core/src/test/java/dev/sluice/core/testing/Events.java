package dev.sluice.core.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Events as producers send them, for tests. {@link #payment()} and {@link #click()} start from the
 * committed valid fixtures ({@code events/payment-valid.json}, {@code events/click-view.json}: real
 * events that conform to {@code schemas/}) and change only what the test names, so an event stays
 * valid unless the test makes it otherwise:
 *
 * <pre>{@code
 * byte[] data = Events.payment().eventId("pay-00000001").amount("12.30").country("DE").bytes();
 * ObjectNode bot = Events.click().userAgent("Googlebot/2.1").node();
 * }</pre>
 *
 * <p>{@link #fixture(String)} gives a committed fixture's bytes exactly as written, the broken ones
 * ({@code payment-malformed.json}, {@code payment-negative-amount.json},
 * {@code payment-missing-timestamp.json}) included.
 */
public final class Events {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Events() {}

    /** The valid card payment of {@code events/payment-valid.json} ({@code payments.transaction.v1}). */
    public static Payment payment() {
        return new Payment();
    }

    /** The valid page view of {@code events/click-view.json} ({@code clickstream.pageview.v1}). */
    public static Click click() {
        return new Click();
    }

    /** The bytes of the committed fixture {@code events/<name>}, exactly as written. */
    public static byte[] fixture(String name) {
        try (InputStream in = Events.class.getResourceAsStream("/events/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no event fixture events/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The committed fixture {@code events/<name>} read as a JSON object (a fresh copy each call). */
    public static ObjectNode fixtureNode(String name) {
        try {
            return (ObjectNode) MAPPER.readTree(fixture(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What every event builder sets: the envelope, and the three forms a test hands on ({@link
     * #node()}, {@link #json()}, {@link #bytes()}, each a fresh copy).
     */
    public abstract static class Event<B extends Event<B>> {

        final ObjectNode event;

        Event(String fixture) {
            this.event = fixtureNode(fixture);
        }

        @SuppressWarnings("unchecked")
        private B self() {
            return (B) this;
        }

        ObjectNode payload() {
            return (ObjectNode) event.get("payload");
        }

        B payload(String field, String value) {
            payload().put(field, value);
            return self();
        }

        /** The producer's idempotency key. */
        public B eventId(String eventId) {
            event.put("eventId", eventId);
            return self();
        }

        /** The event type, e.g. one no schema knows. */
        public B type(String type) {
            event.put("type", type);
            return self();
        }

        /** The event time as written, any text (RFC 3339 with an offset, or not a time at all). */
        public B occurredAt(String occurredAt) {
            event.put("occurredAt", occurredAt);
            return self();
        }

        /** The event time, written as {@link Instant#toString()} (UTC, {@code Z}). */
        public B at(Instant occurredAt) {
            return occurredAt(occurredAt.toString());
        }

        /** The partition key field of the envelope. */
        public B key(String key) {
            event.put("key", key);
            return self();
        }

        /** Without the envelope field {@code field} (e.g. {@code occurredAt}). */
        public B without(String field) {
            event.remove(field);
            return self();
        }

        /** The envelope's partition key. */
        public String key() {
            return event.path("key").asText();
        }

        /** The event as a JSON object, read back from {@link #json()} with a plain {@link ObjectMapper}. */
        public ObjectNode node() {
            try {
                return (ObjectNode) MAPPER.readTree(json());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The event as compact JSON text. */
        public String json() {
            try {
                return MAPPER.writeValueAsString(event);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The event as compact UTF-8 JSON, as a producer puts it on a stream. */
        public byte[] bytes() {
            return json().getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return json();
        }
    }

    /** A card payment, {@code payments.transaction.v1}. */
    public static final class Payment extends Event<Payment> {

        Payment() {
            super("payment-valid.json");
        }

        /** The customer: {@code payload.customerId} and the partition key ({@code cust-} and seven digits). */
        public Payment customer(String customerId) {
            key(customerId);
            return payload("customerId", customerId);
        }

        /** The card number (PAN), which the payments stage masks. */
        public Payment card(String cardNumber) {
            return payload("cardNumber", cardNumber);
        }

        /** The e-mail address, which the payments stage tokenizes. */
        public Payment email(String email) {
            return payload("email", email);
        }

        /** The amount, written exactly as the number text given ({@code "12.30"}, {@code "1E-31"}). */
        public Payment amount(String number) {
            payload().putRawValue("amount", new RawValue(number));
            return this;
        }

        /** The amount, written as Jackson writes a double ({@code 1000} as {@code 1000.0}). */
        public Payment amount(double amount) {
            payload().put("amount", amount);
            return this;
        }

        /** The ISO 4217 currency code. */
        public Payment currency(String currency) {
            return payload("currency", currency);
        }

        /** The merchant's country (ISO 3166-1 alpha-2). */
        public Payment country(String country) {
            return payload("country", country);
        }

        /** The merchant's id ({@code m-} and six digits). */
        public Payment merchant(String merchantId) {
            ((ObjectNode) payload().get("merchant")).put("id", merchantId);
            return this;
        }

        /** The merchant's name. */
        public Payment merchantName(String name) {
            ((ObjectNode) payload().get("merchant")).put("name", name);
            return this;
        }
    }

    /** A page view or basket action, {@code clickstream.pageview.v1}. */
    public static final class Click extends Event<Click> {

        Click() {
            super("click-view.json");
        }

        /** The session: {@code payload.sessionId} and the partition key ({@code s-} and twelve hex digits). */
        public Click session(String sessionId) {
            key(sessionId);
            return payload("sessionId", sessionId);
        }

        /** The visitor ({@code v-} and twelve hex digits). */
        public Click visitor(String visitorId) {
            return payload("visitorId", visitorId);
        }

        /** The logged-in visitor's e-mail address, which the clickstream stage tokenizes. */
        public Click email(String customerEmail) {
            return payload("customerEmail", customerEmail);
        }

        /** The visitor's IP address, which the clickstream stage drops. */
        public Click ipAddress(String ipAddress) {
            return payload("ipAddress", ipAddress);
        }

        /** The page's URL. */
        public Click url(String url) {
            return payload("url", url);
        }

        /** Time on the page before this action, in milliseconds. */
        public Click durationMs(long durationMs) {
            payload().put("durationMs", durationMs);
            return this;
        }

        /** The page ({@code p-} and six digits). */
        public Click page(String pageId) {
            return payload("pageId", pageId);
        }

        /** The browser's user agent (a bot's is filtered out by the clickstream stage). */
        public Click userAgent(String userAgent) {
            return payload("userAgent", userAgent);
        }
    }
}
