package dev.sluice.core.schema.fast;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.NumericNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks of one schema keyword (or of a few keywords that belong together), each mirroring one networknt 1.5.9
 * validator's verdict. They are final classes called directly from {@link SchemaChecker}, so that the JIT can inline
 * the whole tree; none allocates on the valid path unless noted.
 */
final class Checkers {

    private Checkers() {}

    // ---------------------------------------------------------------- type

    static final int OBJECT = 1;
    static final int ARRAY = 1 << 1;
    static final int STRING = 1 << 2;
    static final int NUMBER = 1 << 3;
    static final int INTEGER = 1 << 4;
    static final int BOOLEAN = 1 << 5;
    static final int NULL = 1 << 6;

    /**
     * {@code type} (one name or several), as networknt's {@code TypeValidator}/{@code UnionTypeValidator}: an integer
     * satisfies {@code number}; a number without a fractional part ({@code 1.0}) satisfies {@code integer}, as from
     * draft 6 on.
     */
    static boolean type(int allowed, JsonNode node) {
        // instanceof rather than a switch on getNodeType(): no megamorphic call, no enum switch map
        if (node instanceof TextNode) {
            return (allowed & STRING) != 0;
        }
        if (node instanceof ObjectNode) {
            return (allowed & OBJECT) != 0;
        }
        if (node instanceof NumericNode) {
            if ((allowed & NUMBER) != 0) {
                return true;
            }
            return (allowed & INTEGER) != 0 && (node.isIntegralNumber() || node.canConvertToExactIntegral());
        }
        if (node instanceof ArrayNode) {
            return (allowed & ARRAY) != 0;
        }
        if (node instanceof BooleanNode) {
            return (allowed & BOOLEAN) != 0;
        }
        if (node instanceof NullNode) {
            return (allowed & NULL) != 0;
        }
        throw Unsure.INSTANCE; // binary, POJO, missing: left to networknt
    }

    // ---------------------------------------------------------------- objects

    /**
     * {@code properties}, {@code required} and {@code additionalProperties} of one schema, in a single pass over the
     * declared names (hash lookups; the instance's members are iterated only when it has undeclared ones). As in
     * networknt, a member whose name starts with {@code #} is never "additional".
     */
    static final class Properties {
        static final int ADDITIONAL_ALLOWED = 0;
        static final int ADDITIONAL_FORBIDDEN = 1;
        static final int ADDITIONAL_SCHEMA = 2;

        private final String[] names;
        private final SchemaChecker[] checkers;
        private final boolean[] required;
        private final String[] requiredUndeclared;
        private final Set<String> declared;
        private final int additional;
        private final SchemaChecker additionalChecker;

        Properties(
                String[] names,
                SchemaChecker[] checkers,
                boolean[] required,
                String[] requiredUndeclared,
                int additional,
                SchemaChecker additionalChecker) {
            this.names = names;
            this.checkers = checkers;
            this.required = required;
            this.requiredUndeclared = requiredUndeclared;
            this.declared = Set.of(names);
            this.additional = additional;
            this.additionalChecker = additionalChecker;
        }

        boolean test(JsonNode node) {
            if (!(node instanceof ObjectNode)) {
                return true;
            }
            int present = 0;
            for (int i = 0; i < names.length; i++) {
                JsonNode value = node.get(names[i]);
                if (value == null) {
                    if (required[i]) {
                        return false;
                    }
                } else {
                    present++;
                    if (!checkers[i].test(value)) {
                        return false;
                    }
                }
            }
            for (String name : requiredUndeclared) {
                if (node.get(name) == null) {
                    return false;
                }
            }
            if (additional == ADDITIONAL_ALLOWED || present == node.size()) {
                return true;
            }
            // undeclared members (rare on the valid path; iterating allocates an iterator)
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> member = it.next();
                String name = member.getKey();
                if (declared.contains(name) || name.startsWith("#")) {
                    continue;
                }
                if (additional == ADDITIONAL_FORBIDDEN || !additionalChecker.test(member.getValue())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** {@code minProperties} / {@code maxProperties}. */
    static final class PropertyCount {
        private final int min;
        private final int max;

        PropertyCount(int min, int max) {
            this.min = min;
            this.max = max;
        }

        boolean test(JsonNode node) {
            return !node.isObject() || (node.size() >= min && node.size() <= max);
        }
    }

    // ---------------------------------------------------------------- arrays

    /** {@code items} (a schema, or {@code false}), {@code minItems} and {@code maxItems}. */
    static final class Items {
        private final int min;
        private final int max;
        private final SchemaChecker items; // null: no items keyword

        Items(int min, int max, SchemaChecker items) {
            this.min = min;
            this.max = max;
            this.items = items;
        }

        boolean test(JsonNode node) {
            if (!node.isArray()) {
                return true;
            }
            int size = node.size();
            if (size < min || size > max) {
                return false;
            }
            if (items != null) {
                for (int i = 0; i < size; i++) {
                    if (!items.test(node.get(i))) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    // ---------------------------------------------------------------- strings

    /**
     * {@code minLength}/{@code maxLength} (in code points), {@code pattern} and {@code format} of one schema; each
     * applies to strings only.
     */
    static final class StringChecks {
        private final int minLength;
        private final int maxLength;
        private final PatternCheck pattern; // may be null
        private final FastFormats.FormatCheck format; // may be null

        StringChecks(int minLength, int maxLength, PatternCheck pattern, FastFormats.FormatCheck format) {
            this.minLength = minLength;
            this.maxLength = maxLength;
            this.pattern = pattern;
            this.format = format;
        }

        boolean test(JsonNode node) {
            if (!(node instanceof TextNode)) {
                if (node.getNodeType() == JsonNodeType.BINARY) {
                    throw Unsure.INSTANCE; // a "string" to networknt, but without text
                }
                return true;
            }
            String s = node.textValue();
            int length = s.length();
            // ceil(chars / 2) <= code points <= chars: count only when the char count is not conclusive
            if (length < minLength) {
                return false;
            }
            if (length > maxLength || (length + 1) / 2 < minLength) {
                int codePoints = s.codePointCount(0, length);
                if (codePoints < minLength || codePoints > maxLength) {
                    return false;
                }
            }
            return (pattern == null || pattern.find(s)) && (format == null || format.test(s));
        }
    }

    /**
     * A {@code pattern}, with networknt's semantics: {@code java.util.regex} {@code find()}. Small anchored patterns
     * run on {@link SimpleRegex}, which falls back to the JDK only for a string ending with a line terminator; other
     * patterns use the JDK with one reusable matcher per thread.
     */
    static final class PatternCheck {
        private final SimpleRegex simple; // null: JDK only
        private final Pattern jdk;
        private final ThreadLocal<Matcher> matchers;

        PatternCheck(String regex) {
            this.jdk = Pattern.compile(regex); // as networknt compiles it; a syntax error fails here as there
            this.simple = SimpleRegex.compile(regex).orElse(null);
            this.matchers = simple == null ? ThreadLocal.withInitial(() -> jdk.matcher("")) : null;
        }

        boolean find(String s) {
            if (simple != null) {
                return simple.matches(s)
                        || (SimpleRegex.mayNeedJdk(s) && jdk.matcher(s).find());
            }
            Matcher matcher = matchers.get().reset(s);
            boolean found = matcher.find();
            matcher.reset(""); // do not keep the instance's text reachable
            return found;
        }
    }

    // ---------------------------------------------------------------- values

    /**
     * {@code const}: numbers compare by value ({@code BigDecimal.compareTo}), everything else by Jackson's {@code
     * equals} — exactly networknt's {@code ConstValidator}.
     */
    static final class Const {
        private final JsonNode value;

        Const(JsonNode value) {
            this.value = value;
        }

        boolean test(JsonNode node) {
            if (value.isNumber() && node.isNumber()) {
                return value.decimalValue().compareTo(node.decimalValue()) == 0;
            }
            return value.equals(node);
        }
    }

    /**
     * {@code enum}: networknt's {@code EnumValidator} set — numbers normalised to {@code DecimalNode}s of their plain
     * text, arrays with their numbers normalised the same way — with a string set in front so that the common string
     * case is one hash lookup. Numbers and arrays allocate, as in networknt.
     */
    static final class Enum {
        private final Set<JsonNode> nodes = new HashSet<>();
        private final Set<String> strings = new HashSet<>();

        Enum(JsonNode values) {
            for (JsonNode n : values) {
                if (n.isNumber()) {
                    nodes.add(number(n));
                } else if (n.isArray()) {
                    nodes.add(array((ArrayNode) n));
                } else {
                    nodes.add(n);
                    if (n.isTextual()) {
                        strings.add(n.textValue());
                    }
                }
            }
        }

        boolean test(JsonNode node) {
            if (node.isTextual()) {
                return strings.contains(node.textValue());
            }
            if (node.isNumber()) {
                return nodes.contains(number(node));
            }
            if (node.isArray()) {
                return nodes.contains(array((ArrayNode) node));
            }
            return nodes.contains(node);
        }

        private static JsonNode number(JsonNode n) {
            return DecimalNode.valueOf(new BigDecimal(n.decimalValue().toPlainString()));
        }

        private static ArrayNode array(ArrayNode node) {
            boolean hasNumber = false;
            for (int i = 0; i < node.size() && !hasNumber; i++) {
                hasNumber = node.get(i).isNumber();
            }
            if (!hasNumber) {
                return node;
            }
            ArrayNode copy = node.deepCopy();
            for (int i = 0; i < copy.size(); i++) {
                if (copy.get(i).isNumber()) {
                    copy.set(i, number(copy.get(i)));
                }
            }
            return copy;
        }
    }
}
