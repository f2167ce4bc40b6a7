package dev.sluice.core.json;

import com.fasterxml.jackson.databind.node.TextNode;

/**
 * A string value that remembers where its token was in the record's bytes, so that an edit of the
 * value can be spliced into the original bytes instead of serialising the whole tree again. Equal
 * to a plain {@link TextNode} with the same text: trees compare, copy and serialise as before.
 */
public final class LocatedTextNode extends TextNode {

    private static final long serialVersionUID = 1L;

    private final int start;
    private final int end;

    /**
     * @param text the string's value
     * @param start offset of the token's opening quote
     * @param end offset just after its closing quote
     */
    public LocatedTextNode(String text, int start, int end) {
        super(text);
        if (start < 0 || end <= start) {
            throw new IllegalArgumentException("token range [" + start + ", " + end + ") is empty or negative");
        }
        this.start = start;
        this.end = end;
    }

    /** Offset of the token's opening quote in the record's bytes. */
    public int start() {
        return start;
    }

    /** Offset just after the token's closing quote. */
    public int end() {
        return end;
    }
}
