package dev.sluice.core.schema.fast;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.DatatypeFeatures;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.core.json.LocatedTextNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one event in a single pass over its JSON tokens: it decides that the event is valid against a schema, and
 * records the values at a few paths (the fields a stage's steps read) into a sparse tree, without building the
 * event's tree. A stage hands the steps that sparse tree and the sinks the record's own bytes with the steps' edits
 * spliced in.
 *
 * <p>The pass only ever answers "valid, and here are the fields" or "not sure" ({@link #read} returns {@code null}):
 * invalid, malformed, a duplicate member name, anything it does not check itself. The caller then reads the record
 * the full way (its tree, {@link FastValidator}, networknt), which gives the verdict and every message. So a record is
 * accepted here only when the full way would accept it too: the checks of each value are {@link FastValidator}'s own
 * compiled checkers, fed the very node Jackson's tree would hold; what a tree would hold is built here as Jackson's
 * {@code JsonNodeDeserializer} builds it, for the mapper given.
 *
 * <p>What it checks while reading: a single JSON object and nothing after it; no member name twice in an object (at
 * any depth); per object schema, {@code type}, {@code properties}, {@code required}, {@code additionalProperties},
 * {@code minProperties}, {@code maxProperties}; per array schema {@code type}, {@code items}, {@code minItems},
 * {@code maxItems}; every scalar against its subschema's whole checker. A subschema with {@code allOf}, {@code anyOf},
 * {@code oneOf}, {@code not}, {@code const} or {@code enum} that meets an object or an array has that value read into a
 * tree and tested by its checker. The caller must have checked the bytes are well-formed UTF-8 without a surrogate
 * escape (the record parser's scan): Jackson does not check either.
 *
 * <p>Recorded: each path's value as the tree would hold it (string values as {@link LocatedTextNode}s, so that edits
 * can be spliced); objects on the way to a deeper path become sparse objects holding only the recorded members; a path
 * that meets anything but an object on its way records that value whole. Thread-safe: its only state is the member
 * order each object shape had lately, a prediction that lets Jackson match names by their bytes, and a few strings
 * each subschema accepted lately.
 */
public final class TokenReader {

    private static final int MAX_DECLARED = Long.SIZE;

    /** A value the reader cannot vouch for: the caller reads the record the full way. */
    private static final class NotSure extends Exception {
        private static final long serialVersionUID = 1L;
        static final NotSure INSTANCE = new NotSure();

        private NotSure() {
            super("not sure", null, false, false);
        }
    }

    /**
     * What one read found.
     *
     * @param fields the recorded fields
     * @param rootSize how many members the event's root object has
     * @param oneLine whether the record holds no line feed and no carriage return (the tokenizer
     *     counted its lines: raw line breaks can only be white space between tokens)
     */
    public record Reading(ObjectNode fields, int rootSize, boolean oneLine) {}

    private final Shape root;
    private final Want want;
    private final ObjectReader reader;
    private final JsonNodeFactory factory;
    private final boolean bigIntegers;
    private final boolean longs;
    private final boolean decimals;
    private final boolean strip;

    private TokenReader(Shape root, Want want, ObjectReader reader, DeserializationConfig config) {
        this.root = root;
        this.want = want;
        this.reader = reader;
        this.factory = config.getNodeFactory();
        this.bigIntegers = config.isEnabled(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
        this.longs = config.isEnabled(DeserializationFeature.USE_LONG_FOR_INTS);
        DatatypeFeatures features = config.getDatatypeFeatures();
        Boolean decimalsSet = features.getExplicitState(JsonNodeFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        this.decimals =
                decimalsSet != null ? decimalsSet : config.isEnabled(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        this.strip = features.isExplicitlySet(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                ? features.isEnabled(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                : factory.willStripTrailingBigDecimalZeroes();
    }

    /**
     * A reader for the events of a schema, recording these paths (member names from the root).
     *
     * @param schema the event schema's document
     * @param mapper the mapper whose trees the recorded values must equal
     * @param paths the paths to record
     * @return empty when the schema uses a keyword {@link FastValidator} does not support, its root is not a plain
     *     object schema, or the mapper reads trees in a way this reader does not mirror (null members left out)
     */
    public static Optional<TokenReader> compile(JsonNode schema, ObjectMapper mapper, Collection<List<String>> paths) {
        Objects.requireNonNull(mapper, "mapper");
        DeserializationConfig config = mapper.getDeserializationConfig();
        if (schema == null || !config.isEnabled(JsonNodeFeature.READ_NULL_PROPERTIES)) {
            return Optional.empty();
        }
        Shape root;
        try {
            root = shape(schema);
        } catch (RuntimeException | LinkageError unsupported) {
            return Optional.empty();
        }
        if (root.opaque) {
            return Optional.empty();
        }
        // values read whole are read mid-stream: the end of the record is checked by read() itself
        ObjectReader reader = mapper.reader()
                .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .with(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
        return Optional.of(new TokenReader(root, Want.of(paths), reader, config));
    }

    /**
     * Reads one record's bytes.
     *
     * @param data well-formed UTF-8 without NUL and without a {@code \}{@code uD800}-style escape
     * @return the recorded fields, or {@code null} when the event is not surely valid and well-formed
     */
    public Reading read(byte[] data) {
        try (JsonParser parser = reader.createParser(data)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            ObjectNode fields = factory.objectNode();
            int size = object(parser, root, want, fields);
            if (parser.nextToken() != null) {
                return null;
            }
            return new Reading(fields, size, parser.currentLocation().getLineNr() == 1);
        } catch (NotSure | IOException | RuntimeException notSure) {
            // malformed, invalid, or a value the checkers leave to networknt (Unsure): the full way decides
            return null;
        }
    }

    /**
     * Reads an object's members up to its end; returns how many there were. Members are matched
     * against the order objects of this shape had lately ({@link Order}): while the record follows
     * it, Jackson compares each name's bytes with the expected name and no lookup is made; at the
     * first member out of that order, names are looked up as they come.
     */
    private int object(JsonParser parser, Shape shape, Want want, ObjectNode into) throws IOException, NotSure {
        long seen = 0;
        int count = 0;
        List<String> undeclared = null;
        Order order = shape.order;
        boolean learning = shape.properties.length > 0 && (order == null || shape.misses > Order.RELEARN_AFTER_MISSES);
        int[] learnt = learning ? new int[shape.properties.length] : null;
        boolean predicting = order != null;
        JsonToken token;
        while (true) {
            int declared;
            if (predicting && count < order.names.length && parser.nextFieldName(order.names[count])) {
                declared = order.indices[count];
            } else {
                token = predicting && count < order.names.length ? parser.currentToken() : parser.nextToken();
                if (predicting) {
                    predicting = false;
                    shape.misses++; // racy by design: a hint when to learn again
                }
                if (token != JsonToken.FIELD_NAME) {
                    break;
                }
                Integer at = shape.index.get(parser.currentName());
                declared = at == null ? -1 : at;
            }
            String name = parser.currentName();
            Shape member;
            if (declared >= 0) {
                long bit = 1L << declared;
                if ((seen & bit) != 0) {
                    throw NotSure.INSTANCE; // a duplicate member
                }
                seen |= bit;
                member = shape.properties[declared];
                if (learnt != null) {
                    learnt[count] = declared;
                }
            } else {
                if (shape.additional == null) {
                    throw NotSure.INSTANCE; // additionalProperties: false
                }
                if (undeclared == null) {
                    undeclared = new ArrayList<>(2);
                } else if (undeclared.contains(name)) {
                    throw NotSure.INSTANCE;
                }
                undeclared.add(name);
                member = shape.additional;
                learnt = null; // an order is only learnt from declared members
            }
            count++;
            value(parser, parser.nextToken(), member, want == null ? null : want.child(name), into, name);
        }
        if (token != JsonToken.END_OBJECT
                || (seen & shape.required) != shape.required
                || count < shape.minMembers
                || count > shape.maxMembers) {
            throw NotSure.INSTANCE;
        }
        if (learnt != null && count > 0) {
            shape.order = new Order(shape.names, Arrays.copyOf(learnt, count));
            shape.misses = 0;
        }
        return count;
    }

    private void array(JsonParser parser, Shape shape) throws IOException, NotSure {
        int count = 0;
        JsonToken token;
        while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (token == null) {
                throw NotSure.INSTANCE;
            }
            count++;
            value(parser, token, shape.items, null, null, null);
        }
        if (count < shape.minMembers || count > shape.maxMembers) {
            throw NotSure.INSTANCE;
        }
    }

    /** Checks one value, and records it in {@code into} under {@code name} when it is wanted. */
    private void value(JsonParser parser, JsonToken token, Shape shape, Want want, ObjectNode into, String name)
            throws IOException, NotSure {
        boolean structured = token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY;
        if (!structured) {
            if (want == null && shape.checker == SchemaChecker.TRUE) {
                if (token == JsonToken.VALUE_STRING) {
                    parser.finishToken(); // decoded as the tree would, so that a bad escape is found here too
                }
                return;
            }
            if (want == null && token == JsonToken.VALUE_STRING && shape.valid.inUse()) {
                // a string only checked: a value this subschema already accepted is not checked again
                char[] chars = parser.getTextCharacters();
                int offset = parser.getTextOffset();
                int length = parser.getTextLength();
                if (!shape.valid.contains(chars, offset, length)) {
                    test(shape, factory.textNode(new String(chars, offset, length)));
                    shape.valid.add(chars, offset, length);
                }
                return;
            }
            JsonNode node = scalar(parser, token, want != null);
            test(shape, node);
            if (want != null) {
                into.set(name, node);
            }
            return;
        }
        boolean whole = want != null && (want.whole || token != JsonToken.START_OBJECT);
        if (whole || shape.opaque) {
            JsonNode node = reader.readTree(parser);
            test(shape, node);
            if (whole) {
                into.set(name, node);
            }
            return;
        }
        if (shape.types != 0
                && (shape.types & (token == JsonToken.START_OBJECT ? Checkers.OBJECT : Checkers.ARRAY)) == 0) {
            throw NotSure.INSTANCE;
        }
        if (token == JsonToken.START_ARRAY) {
            array(parser, shape);
        } else {
            object(parser, shape, want, want == null ? null : into.putObject(name));
        }
    }

    private static void test(Shape shape, JsonNode node) throws NotSure {
        if (shape.checker != SchemaChecker.TRUE && !shape.checker.test(node)) {
            throw NotSure.INSTANCE;
        }
    }

    /** A scalar token's node, as Jackson's tree deserializer builds it for this mapper. */
    private JsonNode scalar(JsonParser parser, JsonToken token, boolean locate) throws IOException, NotSure {
        switch (token) {
            case VALUE_STRING:
                if (locate) {
                    long start = parser.currentTokenLocation().getByteOffset();
                    String text = parser.getText();
                    long end = parser.currentLocation().getByteOffset();
                    if (start >= 0 && end > start && end <= Integer.MAX_VALUE) {
                        return new LocatedTextNode(text, (int) start, (int) end);
                    }
                    return factory.textNode(text);
                }
                return factory.textNode(parser.getText());
            case VALUE_NUMBER_INT:
                if (bigIntegers) {
                    return factory.numberNode(parser.getBigIntegerValue());
                }
                JsonParser.NumberType type = parser.getNumberType();
                if (type == JsonParser.NumberType.INT) {
                    return longs ? factory.numberNode(parser.getLongValue()) : factory.numberNode(parser.getIntValue());
                }
                if (type == JsonParser.NumberType.LONG) {
                    return factory.numberNode(parser.getLongValue());
                }
                return factory.numberNode(parser.getBigIntegerValue());
            case VALUE_NUMBER_FLOAT:
                if (decimals || parser.getNumberTypeFP() == JsonParser.NumberTypeFP.BIG_DECIMAL) {
                    if (parser.isNaN()) {
                        throw NotSure.INSTANCE;
                    }
                    BigDecimal decimal = parser.getDecimalValue();
                    if (strip) {
                        try {
                            decimal = decimal.stripTrailingZeros();
                        } catch (ArithmeticException e) {
                            // as Jackson: kept as read
                        }
                    }
                    return factory.numberNode(decimal);
                }
                if (parser.getNumberTypeFP() == JsonParser.NumberTypeFP.FLOAT32) {
                    return factory.numberNode(parser.getFloatValue());
                }
                return factory.numberNode(parser.getDoubleValue());
            case VALUE_TRUE:
                return factory.booleanNode(true);
            case VALUE_FALSE:
                return factory.booleanNode(false);
            case VALUE_NULL:
                return factory.nullNode();
            default:
                throw NotSure.INSTANCE; // embedded objects: not from JSON text
        }
    }

    // ------------------------------------------------------------------------------------------------ compiler

    /** The keywords that make a subschema's objects and arrays be read as trees and tested whole. */
    private static final Set<String> WHOLE_VALUE_KEYWORDS = Set.of("allOf", "anyOf", "oneOf", "not", "const", "enum");

    /**
     * The order of an object's declared members as one object had them: producers write their
     * members in a fixed order, so the next object of the shape most likely has it too. Immutable,
     * replaced whole when objects keep leaving it; only a prediction, never a check.
     */
    private static final class Order {
        /** After this many objects out of order, the next object read teaches the order again. */
        static final int RELEARN_AFTER_MISSES = 32;

        final SerializedString[] names;
        final int[] indices;

        Order(SerializedString[] byIndex, int[] indices) {
            this.indices = indices;
            this.names = new SerializedString[indices.length];
            for (int i = 0; i < indices.length; i++) {
                names[i] = byIndex[indices[i]];
            }
        }
    }

    /** One subschema, as the token walk uses it. */
    private static final class Shape {
        /** The subschema's whole checker: every scalar, and opaque objects and arrays, are tested with it. */
        SchemaChecker checker = SchemaChecker.TRUE;
        /** Objects and arrays are read into a tree and tested whole. */
        boolean opaque;
        /** Allowed types (Checkers' bits); 0: any. */
        int types;
        /** Declared property → its index in {@link #properties}. */
        Map<String, Integer> index = Map.of();
        /** Each declared property's name, by index, ready for Jackson's byte comparison. */
        SerializedString[] names = new SerializedString[0];
        /** The member order objects of this shape had lately; {@code null} until one was read. */
        volatile Order order;
        /** Objects that left {@link #order} since it was learnt (racy: a hint, not a count). */
        int misses;

        Shape[] properties = new Shape[0];
        /** A bit per declared index that is required. */
        long required;
        /** The shape of undeclared members; {@code null}: none allowed. */
        Shape additional;
        /** The shape of array elements. */
        Shape items;
        /** Strings this subschema accepted lately. */
        final ValidStrings valid = new ValidStrings();
        /** Bounds on an object's members or an array's elements (the keyword that applies to the token). */
        int minMembers;

        int maxMembers = Integer.MAX_VALUE;
    }

    /**
     * A few strings a subschema accepted, so that the repeated values of a field (a currency, a
     * merchant, a country) are checked once rather than for every event: a small table indexed by
     * the characters' hash, each slot holding the last valid string that hashed there. A subschema
     * whose values rarely repeat stops using it after a while. Shared by every thread: a slot is
     * replaced whole, by an entry whose characters are final, so a reader sees a valid string or
     * none; the counters are approximate by design.
     */
    static final class ValidStrings {
        private static final int SLOTS = 32;
        private static final int TRIAL = 4096;

        private record Entry(char[] chars) {}

        private final Entry[] slots = new Entry[SLOTS];
        private int lookups;
        private int hits;
        private boolean abandoned;

        /** Whether the table is worth asking. */
        boolean inUse() {
            return !abandoned;
        }

        boolean contains(char[] chars, int offset, int length) {
            Entry entry = slots[hash(chars, offset, length) & (SLOTS - 1)];
            boolean hit = entry != null
                    && Arrays.equals(entry.chars(), 0, entry.chars().length, chars, offset, offset + length);
            if (lookups < TRIAL) {
                lookups++;
                if (hit) {
                    hits++;
                }
            } else if (!abandoned && hits < TRIAL / 4) {
                abandoned = true; // most values are new: checking them straight away is cheaper
            }
            return hit;
        }

        void add(char[] chars, int offset, int length) {
            slots[hash(chars, offset, length) & (SLOTS - 1)] =
                    new Entry(Arrays.copyOfRange(chars, offset, offset + length));
        }

        private static int hash(char[] chars, int offset, int length) {
            int h = length;
            for (int i = offset; i < offset + length; i++) {
                h = 31 * h + chars[i];
            }
            return h ^ (h >>> 16);
        }
    }

    /** Every value allowed; objects still walked for duplicate members. */
    private static Shape any() {
        Shape any = new Shape();
        any.additional = any;
        any.items = any;
        return any;
    }

    private static final Shape ANY = any();

    private static Shape shape(JsonNode schema) {
        if (schema.isBoolean()) {
            if (schema.booleanValue()) {
                return ANY;
            }
            Shape never = new Shape();
            never.checker = SchemaChecker.FALSE;
            never.opaque = true;
            return never;
        }
        Shape shape = new Shape();
        shape.checker = FastValidator.schema(schema); // throws on anything FastValidator does not support
        shape.opaque = WHOLE_VALUE_KEYWORDS.stream().anyMatch(schema::has);
        if (schema.has("type")) {
            shape.types = FastValidator.types(schema.get("type"));
        }
        JsonNode properties = schema.get("properties");
        Map<String, Integer> index = new HashMap<>();
        List<Shape> declared = new ArrayList<>();
        if (properties != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> property = it.next();
                index.put(property.getKey(), declared.size());
                declared.add(shape(property.getValue()));
            }
        }
        if (declared.size() > MAX_DECLARED) {
            shape.opaque = true;
        }
        JsonNode required = schema.get("required");
        if (required != null) {
            for (JsonNode name : required) {
                Integer at = index.get(name.textValue());
                if (at == null || at >= MAX_DECLARED) {
                    shape.opaque = true; // required but undeclared: left to the whole checker
                } else {
                    shape.required |= 1L << at;
                }
            }
        }
        shape.index = Map.copyOf(index);
        shape.properties = declared.toArray(new Shape[0]);
        shape.names = new SerializedString[shape.properties.length];
        index.forEach((name, at) -> shape.names[at] = new SerializedString(name));
        JsonNode additional = schema.get("additionalProperties");
        if (additional == null || (additional.isBoolean() && additional.booleanValue())) {
            shape.additional = ANY;
        } else if (additional.isBoolean()) {
            shape.additional = null;
        } else {
            shape.additional = shape(additional);
        }
        JsonNode items = schema.get("items");
        shape.items = items == null ? ANY : shape(items);
        boolean objects = shape.types == 0 || (shape.types & Checkers.OBJECT) != 0;
        boolean arrays = shape.types == 0 || (shape.types & Checkers.ARRAY) != 0;
        int minProperties = count(schema, "minProperties", 0, shape);
        int maxProperties = count(schema, "maxProperties", Integer.MAX_VALUE, shape);
        int minItems = count(schema, "minItems", 0, shape);
        int maxItems = count(schema, "maxItems", Integer.MAX_VALUE, shape);
        if (objects && arrays && (minProperties != minItems || maxProperties != maxItems)) {
            shape.opaque = true; // both kinds allowed with different bounds: the whole checker tells them apart
        }
        shape.minMembers = objects ? minProperties : minItems;
        shape.maxMembers = objects ? maxProperties : maxItems;
        return shape;
    }

    /** An integral count keyword, or {@code otherwise}; a non-integral one makes the shape opaque. */
    private static int count(JsonNode schema, String keyword, int otherwise, Shape shape) {
        JsonNode value = schema.get(keyword);
        if (value == null) {
            return otherwise;
        }
        if (!value.canConvertToInt() || !value.canConvertToExactIntegral() || value.intValue() < 0) {
            shape.opaque = true;
            return otherwise;
        }
        return value.intValue();
    }

    /** The paths to record, as a tree of member names. */
    private static final class Want {
        /** The value here is recorded whole. */
        boolean whole;

        final Map<String, Want> children = new LinkedHashMap<>();

        static Want of(Collection<List<String>> paths) {
            Want root = new Want();
            for (List<String> path : paths) {
                if (path.isEmpty()) {
                    throw new IllegalArgumentException("the empty path (the whole event) cannot be recorded");
                }
                Want at = root;
                for (String name : path) {
                    at = at.children.computeIfAbsent(Objects.requireNonNull(name, "name"), n -> new Want());
                }
                at.whole = true;
            }
            return root;
        }

        Want child(String name) {
            return children.isEmpty() ? null : children.get(name);
        }
    }
}
