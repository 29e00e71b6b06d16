package dev.skillgate.protocol.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.shared.Text;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.BigIntegerNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.ContainerNode;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.LongNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Strict, bounded JSON decoding of raw bytes into a Jackson 3 tree with exact numbers.
 *
 * <p>Accepts exactly one JSON value (RFC 8259) in strict UTF-8 and nothing else: no byte-order mark,
 * no trailing data or second value, no duplicate keys, no {@code NaN}/{@code Infinity}, no escaped
 * unpaired surrogate, no raw control bytes, at most {@code maxBytes} bytes, at most
 * {@code maxDepth} nested containers (a container at the root is depth 1) and at most
 * {@code maxNodes} values (every object, array and scalar counts one; property names do not).
 * Integers become int, long or big-integer nodes; every number with a fraction or exponent becomes
 * a {@link java.math.BigDecimal} node with the exact digits given, never a double.
 *
 * <p>Used by the execution manifest parser, the schema gate, invocation and result validation, and
 * the trust-contract parser. Failures are values carrying a {@code JSON_*} code, the JSON pointer of
 * the innermost container reached and the byte offset; messages never quote the input. The tree it
 * returns is fresh and owned by the caller. Thread-safe; the parser factory is shared and immutable.
 */
public final class StrictJsonDecoder {

    /** The outcome of one decode: a tree, or one failure. */
    public sealed interface Outcome permits Decoded, Failed {}

    /**
     * A decoded value.
     *
     * @param root the value (a fresh tree the caller owns)
     * @param nodes how many values it holds
     */
    public record Decoded(JsonNode root, int nodes) implements Outcome {
        public Decoded {
            Objects.requireNonNull(root, "root");
        }
    }

    /**
     * Why the bytes were refused.
     *
     * @param code a {@code JSON_*} code
     * @param pointer JSON pointer of the innermost container reached ("" for the root or none)
     * @param byteOffset where it was noticed, or -1 when unknown
     * @param message short text that never quotes the input
     */
    public record Failed(ErrorCode code, String pointer, long byteOffset, String message) implements Outcome {
        public Failed {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(pointer, "pointer");
            Objects.requireNonNull(message, "message");
        }

        /** This failure as an error diagnostic with its own code. */
        public Diagnostic toDiagnostic() {
            return Diagnostic.error(code, pointer, message);
        }

        /** This failure as an error diagnostic under a caller's code (e.g. {@code MANIFEST_SYNTAX}). */
        public Diagnostic toDiagnostic(ErrorCode callerCode) {
            return Diagnostic.error(callerCode, pointer, message);
        }
    }

    private static final JsonFactory FACTORY = JsonFactory.builder()
            // Our own checks report depth and size first, with a pointer; these are backstops one
            // past our bounds so they can only fire if our own accounting were wrong.
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Limits.JSON_DEPTH + 1)
                    .maxDocumentLength(Limits.CAPTURE_BYTES)
                    .build())
            // Duplicate keys are caught exactly, with their pointer, where the tree is built
            // (ObjectNode.replace returns the earlier value); the parser's own detector would only
            // repeat that work with a hash set per object (~10% of decoding a 50-property object).
            .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            // Lets NaN/Infinity reach us as tokens so they are refused with their own code below;
            // they never reach a tree.
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    private StrictJsonDecoder() {}

    /** Decodes with the standard bounds: {@link Limits#JSON_DEPTH} and {@link Limits#JSON_NODES}. */
    public static Outcome decode(byte[] bytes, int maxBytes) {
        return decode(bytes, maxBytes, Limits.JSON_DEPTH, Limits.JSON_NODES);
    }

    /**
     * Decodes {@code bytes} as exactly one strict JSON value within the given bounds.
     *
     * @param bytes the raw bytes, not modified
     * @param maxBytes most bytes accepted (at most {@link Limits#CAPTURE_BYTES})
     * @param maxDepth most nested containers (at most {@link Limits#JSON_DEPTH})
     * @param maxNodes most values
     */
    public static Outcome decode(byte[] bytes, int maxBytes, int maxDepth, int maxNodes) {
        Objects.requireNonNull(bytes, "bytes");
        if (maxBytes < 0 || maxBytes > Limits.CAPTURE_BYTES) {
            throw new IllegalArgumentException("maxBytes out of range: " + maxBytes);
        }
        if (maxDepth < 0 || maxDepth > Limits.JSON_DEPTH || maxNodes < 1) {
            throw new IllegalArgumentException("depth or node bound out of range");
        }
        if (bytes.length > maxBytes) {
            return new Failed(
                    ErrorCode.JSON_TOO_LARGE,
                    "",
                    maxBytes,
                    "the JSON text is " + bytes.length + " bytes; the bound is " + maxBytes);
        }
        if (hasByteOrderMark(bytes)) {
            return new Failed(ErrorCode.JSON_BOM, "", 0, "the JSON text starts with a byte-order mark");
        }
        Utf8Scan.Problem problem = Utf8Scan.firstProblem(bytes);
        if (problem != null) {
            return new Failed(problem.code(), "", problem.offset(), problem.message());
        }
        return new TreeBuilder(bytes, maxDepth, maxNodes).build();
    }

    private static boolean hasByteOrderMark(byte[] b) {
        if (b.length >= 3 && (b[0] & 0xFF) == 0xEF && (b[1] & 0xFF) == 0xBB && (b[2] & 0xFF) == 0xBF) {
            return true;
        }
        // UTF-16 byte-order marks; never valid UTF-8 either, but named for what they are.
        return b.length >= 2
                && (((b[0] & 0xFF) == 0xFE && (b[1] & 0xFF) == 0xFF)
                        || ((b[0] & 0xFF) == 0xFF && (b[1] & 0xFF) == 0xFE));
    }

    /** Builds the tree iteratively (no recursion), tracking depth, node count and the current pointer. */
    private static final class TreeBuilder {
        private final byte[] bytes;
        private final int maxDepth;
        private final int maxNodes;
        private final ContainerNode<?>[] stack;
        /** {@code names[i]} is the key of the latest child of {@code stack[i]} when it is an object. */
        private final String[] names;

        private int depth;
        private int nodes;
        private String pendingName;
        private boolean rootDone;

        TreeBuilder(byte[] bytes, int maxDepth, int maxNodes) {
            this.bytes = bytes;
            this.maxDepth = maxDepth;
            this.maxNodes = maxNodes;
            this.stack = new ContainerNode<?>[maxDepth + 1];
            this.names = new String[maxDepth + 1];
        }

        Outcome build() {
            JsonNode root = null;
            try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), bytes)) {
                JsonToken token = p.nextToken();
                if (token == null) {
                    return new Failed(ErrorCode.JSON_EMPTY, "", 0, "the JSON text holds no value");
                }
                while (true) {
                    JsonNode scalar = null;
                    switch (token) {
                        case START_OBJECT, START_ARRAY -> {
                            ContainerNode<?> container = token == JsonToken.START_OBJECT
                                    ? JsonNodeFactory.instance.objectNode()
                                    : JsonNodeFactory.instance.arrayNode();
                            Failed failed = attach(container, p);
                            if (failed != null) {
                                return failed;
                            }
                            if (depth == maxDepth) {
                                return new Failed(
                                        ErrorCode.JSON_DEPTH,
                                        valuePointer(),
                                        offset(p),
                                        "the JSON value nests deeper than " + maxDepth);
                            }
                            if (depth == 0) {
                                root = container;
                            }
                            stack[depth++] = container;
                        }
                        case END_OBJECT, END_ARRAY -> stack[--depth] = null;
                        case PROPERTY_NAME -> pendingName = p.currentName();
                        case VALUE_STRING -> scalar = StringNode.valueOf(p.getString());
                        case VALUE_NUMBER_INT ->
                            scalar = switch (p.getNumberType()) {
                                case INT -> IntNode.valueOf(p.getIntValue());
                                case LONG -> LongNode.valueOf(p.getLongValue());
                                default -> BigIntegerNode.valueOf(p.getBigIntegerValue());
                            };
                        case VALUE_NUMBER_FLOAT -> {
                            if (p.isNaN()) {
                                return new Failed(
                                        ErrorCode.JSON_NON_FINITE,
                                        containerPointer(),
                                        offset(p),
                                        "NaN and Infinity are not JSON numbers");
                            }
                            scalar = DecimalNode.valueOf(p.getDecimalValue());
                        }
                        case VALUE_TRUE -> scalar = BooleanNode.TRUE;
                        case VALUE_FALSE -> scalar = BooleanNode.FALSE;
                        case VALUE_NULL -> scalar = NullNode.getInstance();
                        default -> {
                            return new Failed(ErrorCode.JSON_SYNTAX, containerPointer(), offset(p), "unexpected token");
                        }
                    }
                    if (scalar != null) {
                        Failed failed = attach(scalar, p);
                        if (failed != null) {
                            return failed;
                        }
                        if (depth == 0) {
                            root = scalar;
                        }
                    }
                    if (depth == 0 && root != null) {
                        break;
                    }
                    token = p.nextToken();
                    if (token == null) {
                        return new Failed(
                                ErrorCode.JSON_SYNTAX, containerPointer(), -1, "the JSON text ends inside a value");
                    }
                }
                rootDone = true;
                if (p.nextToken() != null) {
                    long at = offset(p);
                    return new Failed(
                            ErrorCode.JSON_TRAILING_DATA,
                            "",
                            at,
                            "a second JSON value follows the first at byte " + at);
                }
                return new Decoded(root, nodes);
            } catch (JacksonException e) {
                return classify(e);
            } catch (NumberFormatException | ArithmeticException e) {
                // Exact conversion only fails on input the parser already refuses; fail closed anyway.
                return new Failed(ErrorCode.JSON_SYNTAX, containerPointer(), -1, "a number could not be read exactly");
            }
        }

        /** Adds {@code value} to the innermost open container (or makes it the root), then counts it. */
        private Failed attach(JsonNode value, JsonParser p) {
            if (depth > 0) {
                ContainerNode<?> parent = stack[depth - 1];
                if (parent instanceof ObjectNode object) {
                    String name = pendingName;
                    pendingName = null;
                    names[depth - 1] = name;
                    if (object.replace(name, value) != null) {
                        return new Failed(
                                ErrorCode.JSON_DUPLICATE_KEY,
                                valuePointer(),
                                offset(p),
                                "the key '" + Text.excerpt(name) + "' appears twice in one object");
                    }
                } else {
                    ((ArrayNode) parent).add(value);
                }
            }
            if (++nodes > maxNodes) {
                return new Failed(
                        ErrorCode.JSON_NODES,
                        valuePointer(),
                        offset(p),
                        "the JSON value has more than " + maxNodes + " nodes");
            }
            return null;
        }

        private Failed classify(JacksonException e) {
            long at = e.getLocation() == null ? -1 : e.getLocation().getByteOffset();
            String where = at >= 0 ? " at byte " + at : "";
            if (rootDone) {
                return new Failed(ErrorCode.JSON_TRAILING_DATA, "", at, "data follows the JSON value" + where);
            }
            if (e instanceof StreamConstraintsException) {
                return new Failed(
                        ErrorCode.JSON_SYNTAX,
                        containerPointer(),
                        at,
                        "a number, string or key" + where + " exceeds the parser's length bounds"
                                + " (numbers: 1,000 characters)");
            }
            if (e instanceof UnexpectedEndOfInputException) {
                return new Failed(ErrorCode.JSON_SYNTAX, containerPointer(), at, "the JSON text ends inside a value");
            }
            return new Failed(ErrorCode.JSON_SYNTAX, containerPointer(), at, "malformed JSON" + where + lineColumn(e));
        }

        private static String lineColumn(JacksonException e) {
            TokenStreamLocation location = e.getLocation();
            if (location == null || location.getLineNr() < 1) {
                return "";
            }
            return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        }

        /** The pointer of the innermost open container. */
        private String containerPointer() {
            return pointer(depth - 1);
        }

        /** The pointer of the value just attached to the innermost open container. */
        private String valuePointer() {
            return pointer(depth);
        }

        /**
         * The pointer through the first {@code segments} open containers: the latest child of each
         * (its key in an object, its index — the last element — in an array). Built only on failure.
         */
        private String pointer(int segments) {
            if (segments <= 0) {
                return "";
            }
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < segments; i++) {
                ContainerNode<?> container = stack[i];
                out.append('/');
                if (container instanceof ObjectNode) {
                    out.append(JsonPointers.escape(names[i]));
                } else {
                    out.append(container.size() - 1);
                }
            }
            return out.toString();
        }

        private static long offset(JsonParser p) {
            TokenStreamLocation location = p.currentTokenLocation();
            return location == null ? -1 : location.getByteOffset();
        }
    }
}
