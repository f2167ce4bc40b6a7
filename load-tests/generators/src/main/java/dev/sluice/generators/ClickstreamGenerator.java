package dev.sluice.generators;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Synthetic web-shop clicks ({@code clickstream.pageview.v1}), deterministic for a seed. A fixed
 * number of visitors browse at the same time; each session lasts about a hundred page views over
 * about twenty minutes (one action every ~12 s), then a new session replaces it, so the rate stays
 * at {@code concurrentSessions / 12} events per second of event time (25,000 sessions: about
 * 2,100/s, the founding documents' 125,000 events a minute). Within a session a visitor views
 * pages (popular pages far more often: Zipf-like), marks favourites, puts products in the basket,
 * sometimes takes them out, and now and then checks out. One session in fifty is a bot (its user
 * agent says so: the pipeline filters it). Events come out in event-time order across sessions;
 * the partition key is the session, so one session's clicks stay in order.
 *
 * <p>A configurable share is invalid on purpose — malformed JSON, a missing timestamp, an unknown
 * action — each labelled with the reason code the pipeline must give it.
 */
public final class ClickstreamGenerator {

    /** Average actions per session. */
    public static final int ACTIONS_PER_SESSION = 100;
    /** Average time between two actions of a session. */
    public static final long MILLIS_BETWEEN_ACTIONS = 12_000;

    private static final String[] AGENTS = {
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
        "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36"
    };
    private static final String BOT_AGENT = "Mozilla/5.0 (compatible; examplebot/2.1; +http://example.com/bot)";
    private static final String[] SECTIONS = {"home", "category", "product", "product", "product", "search", "basket"};
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final SplittableRandom random;
    private final ObjectMapper mapper = new ObjectMapper();
    private final int pages;
    private final double invalidShare;
    private final String runId;
    private final PriorityQueue<Session> sessions =
            new PriorityQueue<>((a, b) -> Long.compare(a.nextAtMillis, b.nextAtMillis));
    private long sequence;
    private long sessionCounter;

    /**
     * @param seed makes the stream of events reproducible
     * @param concurrentSessions how many visitors browse at the same time
     * @param pages how many distinct pages the shop has (at most 1,000,000)
     * @param invalidShare fraction of events that are invalid on purpose, 0 to 1
     * @param start event time of the first click
     */
    public ClickstreamGenerator(long seed, int concurrentSessions, int pages, double invalidShare, Instant start) {
        if (concurrentSessions < 1) {
            throw new IllegalArgumentException("concurrentSessions must be positive");
        }
        if (pages < 1 || pages > 1_000_000) {
            throw new IllegalArgumentException("pages must be between 1 and 1,000,000");
        }
        if (invalidShare < 0 || invalidShare > 1) {
            throw new IllegalArgumentException("invalidShare must be between 0 and 1");
        }
        this.random = new SplittableRandom(seed);
        this.pages = pages;
        this.invalidShare = invalidShare;
        this.runId = Long.toHexString(seed & 0xffffffL);
        long startMillis = start.toEpochMilli();
        for (int i = 0; i < concurrentSessions; i++) {
            // sessions are already under way: spread their next actions over one interval
            sessions.add(newSession(startMillis + random.nextLong(MILLIS_BETWEEN_ACTIONS)));
        }
    }

    /** The next click, in event-time order. */
    public GeneratedEvent next() {
        return next(null);
    }

    /**
     * The next click, stamped with the given event time instead of its session's (the load
     * harness stamps the moment it sends); sessions still take turns in their own time order.
     */
    public GeneratedEvent next(Instant stamp) {
        Session session = sessions.poll();
        long n = sequence++;
        String eventId = String.format(Locale.ROOT, "clk-%s-%09d", runId, n);
        Instant occurredAt = stamp != null ? stamp : Instant.ofEpochMilli(session.nextAtMillis);
        ObjectNode event = click(eventId, session, occurredAt);
        session.remaining--;
        long gap = Math.max(500, (long) (-Math.log(1 - random.nextDouble()) * MILLIS_BETWEEN_ACTIONS));
        session.lastGap = gap;
        session.nextAtMillis += gap;
        sessions.add(session.remaining > 0 ? session : newSession(session.nextAtMillis));
        String reason = null;
        if (random.nextDouble() < invalidShare) {
            switch (random.nextInt(3)) {
                case 0 -> {
                    byte[] whole = event.toString().getBytes(StandardCharsets.UTF_8);
                    return new GeneratedEvent(
                            eventId, session.id, java.util.Arrays.copyOf(whole, whole.length / 2), "MALFORMED_JSON");
                }
                case 1 -> {
                    event.remove("occurredAt");
                    reason = "MISSING_TIMESTAMP";
                }
                default -> {
                    ((ObjectNode) event.get("payload")).put("action", "teleport");
                    reason = "SCHEMA_INVALID";
                }
            }
        }
        return new GeneratedEvent(eventId, session.id, event.toString().getBytes(StandardCharsets.UTF_8), reason);
    }

    private Session newSession(long firstAtMillis) {
        long number = sessionCounter++;
        Session session = new Session();
        session.id = String.format(Locale.ROOT, "s-%012x", (seedMix(number) & 0xffffffffffffL));
        session.visitor = String.format(Locale.ROOT, "v-%012x", (seedMix(number * 31 + 7) & 0xffffffffffffL));
        session.bot = random.nextInt(50) == 0;
        session.agent = session.bot ? BOT_AGENT : AGENTS[random.nextInt(AGENTS.length)];
        session.ip = "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
        session.loggedIn = random.nextInt(3) == 0;
        session.remaining = 50 + random.nextInt(ACTIONS_PER_SESSION + 1); // 50–150, ~100 on average
        session.nextAtMillis = firstAtMillis;
        return session;
    }

    private long seedMix(long n) {
        long z = n * 0x9E3779B97F4A7C15L + runId.hashCode();
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private ObjectNode click(String eventId, Session session, Instant occurredAt) {
        int page = page();
        String section = SECTIONS[page % SECTIONS.length];
        ObjectNode event = mapper.createObjectNode();
        event.put("eventId", eventId);
        event.put("type", "clickstream.pageview.v1");
        event.put("source", "webshop-frontend");
        event.put("occurredAt", RFC3339.format(occurredAt));
        event.put("key", session.id);
        ObjectNode payload = event.putObject("payload");
        payload.put("sessionId", session.id);
        payload.put("visitorId", session.visitor);
        if (session.loggedIn) {
            payload.put("customerEmail", session.visitor.substring(2) + "@example.com");
        }
        payload.put("ipAddress", session.ip);
        payload.put("userAgent", session.agent);
        String pageId = String.format(Locale.ROOT, "p-%06d", page);
        payload.put("pageId", pageId);
        payload.put("url", "https://shop.example.com/" + section + "/" + pageId);
        if (session.lastPage != null) {
            payload.put("referrer", "https://shop.example.com/" + session.lastPage);
        }
        payload.put("action", action(session, section));
        if (session.lastGap > 0) {
            payload.put("durationMs", session.lastGap);
        }
        session.lastPage = section + "/" + pageId;
        return event;
    }

    /** Popular pages far more often than the rest (a cubic skew, like the payments' hot customers). */
    private int page() {
        double u = random.nextDouble();
        return (int) Math.min(pages - 1, Math.floor(pages * u * u * u));
    }

    private String action(Session session, String section) {
        if (!section.equals("product") && !section.equals("basket")) {
            return "view";
        }
        int roll = random.nextInt(100);
        if (section.equals("basket")) {
            if (session.basket > 0 && roll < 15) {
                session.basket = 0;
                return "checkout";
            }
            if (session.basket > 0 && roll < 30) {
                session.basket--;
                return "remove_from_basket";
            }
            return "view";
        }
        if (roll < 8) {
            return "favourite";
        }
        if (roll < 20) {
            session.basket++;
            return "add_to_basket";
        }
        return "view";
    }

    /** One visitor's session. */
    private static final class Session {
        String id;
        String visitor;
        String agent;
        String ip;
        boolean bot;
        boolean loggedIn;
        int remaining;
        int basket;
        long nextAtMillis;
        long lastGap;
        String lastPage;
    }
}
