package dev.sluice.core.stage;

/** Names of the envelope fields every Sluice event carries. */
public final class Envelope {

    public static final String EVENT_ID = "eventId";
    public static final String TYPE = "type";
    public static final String SOURCE = "source";
    public static final String OCCURRED_AT = "occurredAt";
    public static final String INGESTED_AT = "ingestedAt";
    public static final String KEY = "key";
    public static final String PAYLOAD = "payload";

    private Envelope() {}
}
