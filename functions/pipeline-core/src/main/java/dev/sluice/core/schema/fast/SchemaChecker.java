package dev.sluice.core.schema.fast;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One compiled (sub)schema: the checks of its keywords, called directly (every node of the tree is this one final
 * class, so the JIT sees monomorphic calls and can inline). Immutable and thread-safe.
 */
final class SchemaChecker {

    static final SchemaChecker TRUE = new SchemaChecker(new Builder());
    static final SchemaChecker FALSE = new SchemaChecker(new Builder().never());

    private final boolean never;
    private final int type; // 0: no type keyword
    private final Checkers.Const constant;
    private final Checkers.Enum values;
    private final Checkers.StringChecks strings;
    private final NumberChecks.Bound[] bounds;
    private final NumberChecks.MultipleOf multipleOf;
    private final Checkers.Properties properties;
    private final Checkers.PropertyCount propertyCount;
    private final Checkers.Items items;
    private final SchemaChecker[] allOf;
    private final SchemaChecker[] anyOf;
    private final SchemaChecker[] oneOf;
    private final SchemaChecker not;

    private SchemaChecker(Builder b) {
        this.never = b.never;
        this.type = b.type;
        this.constant = b.constant;
        this.values = b.values;
        this.strings = b.strings;
        this.bounds = b.bounds;
        this.multipleOf = b.multipleOf;
        this.properties = b.properties;
        this.propertyCount = b.propertyCount;
        this.items = b.items;
        this.allOf = b.allOf;
        this.anyOf = b.anyOf;
        this.oneOf = b.oneOf;
        this.not = b.not;
    }

    /**
     * Whether the node passes.
     *
     * @throws Unsure for the few inputs whose verdict the fast path leaves to networknt
     */
    boolean test(JsonNode node) {
        if (never) {
            return false;
        }
        if (type != 0 && !Checkers.type(type, node)) {
            return false;
        }
        if (strings != null && !strings.test(node)) {
            return false;
        }
        if (bounds != null) {
            for (NumberChecks.Bound bound : bounds) {
                if (!bound.test(node)) {
                    return false;
                }
            }
        }
        if (multipleOf != null && !multipleOf.test(node)) {
            return false;
        }
        if (values != null && !values.test(node)) {
            return false;
        }
        if (constant != null && !constant.test(node)) {
            return false;
        }
        if (properties != null && !properties.test(node)) {
            return false;
        }
        if (propertyCount != null && !propertyCount.test(node)) {
            return false;
        }
        if (items != null && !items.test(node)) {
            return false;
        }
        if (allOf != null) {
            for (SchemaChecker schema : allOf) {
                if (!schema.test(node)) {
                    return false;
                }
            }
        }
        if (anyOf != null && !anyOf(node)) {
            return false;
        }
        if (oneOf != null && !oneOf(node)) {
            return false;
        }
        return not == null || !not.test(node);
    }

    private boolean anyOf(JsonNode node) {
        for (SchemaChecker schema : anyOf) {
            if (schema.test(node)) {
                return true;
            }
        }
        return false;
    }

    private boolean oneOf(JsonNode node) {
        int valid = 0;
        for (SchemaChecker schema : oneOf) {
            if (schema.test(node) && ++valid > 1) {
                return false;
            }
        }
        return valid == 1;
    }

    /** The parts of one schema, filled by the compiler. */
    static final class Builder {
        private boolean never;
        int type;
        Checkers.Const constant;
        Checkers.Enum values;
        Checkers.StringChecks strings;
        NumberChecks.Bound[] bounds;
        NumberChecks.MultipleOf multipleOf;
        Checkers.Properties properties;
        Checkers.PropertyCount propertyCount;
        Checkers.Items items;
        SchemaChecker[] allOf;
        SchemaChecker[] anyOf;
        SchemaChecker[] oneOf;
        SchemaChecker not;

        private Builder never() {
            this.never = true;
            return this;
        }

        SchemaChecker build() {
            boolean empty = type == 0
                    && constant == null
                    && values == null
                    && strings == null
                    && bounds == null
                    && multipleOf == null
                    && properties == null
                    && propertyCount == null
                    && items == null
                    && allOf == null
                    && anyOf == null
                    && oneOf == null
                    && not == null;
            return empty ? TRUE : new SchemaChecker(this);
        }
    }
}
