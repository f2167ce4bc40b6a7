package dev.sluice.core.pii;

import java.util.Locale;

/**
 * One field a schema marks as personal data, and what to do with it.
 *
 * <p>The path is JSON-Pointer-like, from the event's root: property names as RFC 6901 reference
 * tokens ({@code ~} as {@code ~0}, {@code /} as {@code ~1}), {@value #EACH_ELEMENT} for every element
 * of an array and {@value #OTHER_PROPERTIES} for every property an object's {@code
 * additionalProperties} covers. For example {@code /payload/cardNumber} or <code>
 * /payload/lines/&#42;/email</code>. The path is for people and tests; {@link PiiPolicy} works on a
 * precompiled form of it.
 *
 * @param path where the field is
 * @param action what {@link PiiPolicy#apply} does to it
 */
public record PiiField(String path, Action action) {

    /** The path segment that stands for every element of an array. */
    public static final String EACH_ELEMENT = "*";

    /** The path segment that stands for every property covered by {@code additionalProperties}. */
    public static final String OTHER_PROPERTIES = "{additionalProperties}";

    public PiiField {
        if (path == null || action == null) {
            throw new IllegalArgumentException("path and action must not be null");
        }
    }

    /** The values of the {@code x-pii} schema annotation. */
    public enum Action {
        /** {@code "x-pii": "tokenize"}: replace the value by its {@link Tokenizer} token. */
        TOKENIZE,
        /** {@code "x-pii": "mask"}: replace the value by its {@link Masker} mask. */
        MASK,
        /** {@code "x-pii": "drop"}: remove the field. */
        DROP;

        /** The annotation's spelling: {@code tokenize}, {@code mask}, {@code drop}. */
        public String keyword() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The action an annotation names.
         *
         * @throws IllegalArgumentException for any other value, naming it and the values allowed
         */
        public static Action fromKeyword(String keyword) {
            for (Action action : values()) {
                if (action.keyword().equals(keyword)) {
                    return action;
                }
            }
            throw new IllegalArgumentException(
                    "unknown x-pii value '" + keyword + "': expected tokenize, mask or drop");
        }
    }
}
