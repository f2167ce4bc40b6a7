package dev.sluice.core.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Set;

/**
 * The node factory of a tree read with {@link #reading}: string values of the member names it was
 * given (or every string, without names) become {@link LocatedTextNode}s carrying their token's
 * byte range. Everything else is built exactly as Jackson's default factory builds it.
 */
public final class LocatingNodeFactory extends JsonNodeFactory {

    private static final long serialVersionUID = 1L;

    /** The parser of the tree being read on this thread. */
    private static final ThreadLocal<JsonParser> PARSER = new ThreadLocal<>();

    private final transient Set<String> names;

    /**
     * @param bigDecimalExact as {@link JsonNodeFactory#JsonNodeFactory(boolean)}
     * @param names the member names whose string values are located; {@code null} for every string
     */
    public LocatingNodeFactory(boolean bigDecimalExact, Set<String> names) {
        super(bigDecimalExact);
        this.names = names == null ? null : Set.copyOf(names);
    }

    /**
     * Marks the parser whose tokens the next nodes built on this thread come from; {@code null} to
     * clear. Clearing keeps the thread's entry (holding {@code null}) rather than removing it: a
     * removed entry is created again, with a new weak reference, by the next record's read.
     */
    public static void reading(JsonParser parser) {
        PARSER.set(parser);
    }

    @Override
    public TextNode textNode(String text) {
        JsonParser parser = PARSER.get();
        if (parser != null && text != null && wanted(parser.getParsingContext())) {
            long start = parser.currentTokenLocation().getByteOffset();
            long end = parser.currentLocation().getByteOffset();
            if (start >= 0 && end > start && end <= Integer.MAX_VALUE) {
                return new LocatedTextNode(text, (int) start, (int) end);
            }
        }
        return super.textNode(text);
    }

    private boolean wanted(JsonStreamContext context) {
        if (names == null) {
            return true;
        }
        return context != null && context.inObject() && names.contains(context.getCurrentName());
    }
}
