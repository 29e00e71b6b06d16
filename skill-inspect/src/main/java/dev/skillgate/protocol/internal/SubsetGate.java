package dev.skillgate.protocol.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.shared.Text;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.DecimalNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The allow-list gate of SPEC §6: decides whether a schema tree stays inside the bounded subset and,
 * if it does, produces the tree handed to the validator.
 *
 * <p>Every keyword outside the allow-list is rejected by name and JSON pointer, every keyword value
 * is type-checked (networknt silently ignores malformed values), and the structural rules are
 * enforced: object schemas declare {@code properties}, array schemas declare {@code items},
 * {@code anyOf} has 2–4 object branches and no sibling assertions, booleans are schemas only as
 * {@code additionalProperties}, {@code __proto__} never appears as a key, the input root is an
 * explicit object schema, and a keyword that cannot apply to the declared {@code type} is refused.
 * The walk recurses only through schema positions and never deeper than the tree's depth, which the
 * decoder bounds at {@link Limits#JSON_DEPTH}.
 *
 * <p>The tree it returns is a normalised deep copy: numeric bounds become exact decimal nodes (so
 * networknt compares them as {@link BigDecimal}s on every path; its long fast path throws on
 * integral decimals outside the long range) and length/count bounds become int nodes.
 */
public final class SubsetGate {

    /** The draft 2020-12 meta-schema URI, the only accepted {@code $schema} value. */
    public static final String DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

    /** Annotations: allowed anywhere, ignored by validation. */
    public static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples");

    /** Assertion and applicator keywords of the subset. */
    public static final Set<String> ASSERTIONS = Set.of(
            "type",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "anyOf");

    /** Every keyword the gate admits ({@code $schema} only at the root). */
    public static final Set<String> ALLOWED;

    static {
        Set<String> all = new HashSet<>(ASSERTIONS);
        all.addAll(ANNOTATIONS);
        all.add("$schema");
        ALLOWED = Set.copyOf(all);
    }

    private static final Set<String> TYPE_NAMES =
            Set.of("object", "array", "string", "number", "integer", "boolean", "null");

    /** Type-specific keywords and the declared types they can apply to. */
    private static final Map<String, Set<String>> APPLIES_TO = Map.ofEntries(
            Map.entry("properties", Set.of("object")),
            Map.entry("required", Set.of("object")),
            Map.entry("additionalProperties", Set.of("object")),
            Map.entry("items", Set.of("array")),
            Map.entry("minItems", Set.of("array")),
            Map.entry("maxItems", Set.of("array")),
            Map.entry("minLength", Set.of("string")),
            Map.entry("maxLength", Set.of("string")),
            Map.entry("minimum", Set.of("number", "integer")),
            Map.entry("maximum", Set.of("number", "integer")),
            Map.entry("exclusiveMinimum", Set.of("number", "integer")),
            Map.entry("exclusiveMaximum", Set.of("number", "integer")));

    private static final Set<String> COUNT_KEYWORDS = Set.of("minLength", "maxLength", "minItems", "maxItems");

    private static final Set<String> BOUND_KEYWORDS =
            Set.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum");

    private static final String PROTO = "__proto__";

    /** Most problems reported for one schema; the last slot notes that more were found. */
    public static final int MAX_PROBLEMS = Limits.VALIDATION_ISSUES;

    /** The gate's verdict on one schema tree. */
    public sealed interface Verdict permits Admitted, Refused {}

    /**
     * The schema is inside the subset.
     *
     * @param normalized the tree to compile (a fresh deep copy)
     */
    public record Admitted(JsonNode normalized) implements Verdict {
        public Admitted {
            Objects.requireNonNull(normalized, "normalized");
        }
    }

    /**
     * The schema leaves the subset.
     *
     * @param problems at most {@link #MAX_PROBLEMS} diagnostics, the last one
     *     {@link ErrorCode#SCHEMA_ISSUES_TRUNCATED} when more were found
     */
    public record Refused(List<Diagnostic> problems) implements Verdict {
        public Refused {
            problems = List.copyOf(problems);
            if (problems.isEmpty()) {
                throw new IllegalArgumentException("a refusal names at least one problem");
            }
        }
    }

    private final String prefix;
    private final List<Diagnostic> problems = new ArrayList<>();
    private boolean truncated;
    private int nodes;

    private SubsetGate(String prefix) {
        this.prefix = prefix;
    }

    /**
     * Checks a decoded schema tree.
     *
     * @param schema the schema (not modified)
     * @param inputRoot whether the root must be an explicit object schema (input schemas)
     * @param pointerPrefix prepended to every reported pointer (e.g. {@code /inputSchema}); "" for none
     */
    public static Verdict check(JsonNode schema, boolean inputRoot, String pointerPrefix) {
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(pointerPrefix, "pointerPrefix");
        SubsetGate gate = new SubsetGate(pointerPrefix);
        gate.countAndBound(schema);
        if (gate.problems.isEmpty()) {
            gate.schemaAt(schema, "", true, 1);
            if (inputRoot && gate.problems.isEmpty()) {
                gate.inputRoot(schema);
            }
        }
        if (!gate.problems.isEmpty()) {
            return new Refused(gate.problems);
        }
        return new Admitted(normalize(schema));
    }

    /** Depth and node bounds over the whole tree, iteratively, before any recursion. */
    private void countAndBound(JsonNode schema) {
        List<JsonNode> work = new ArrayList<>();
        List<Integer> depths = new ArrayList<>();
        work.add(schema);
        depths.add(schema.isContainer() ? 1 : 0);
        int maxDepth = 0;
        while (!work.isEmpty()) {
            JsonNode node = work.remove(work.size() - 1);
            int depth = depths.remove(depths.size() - 1);
            nodes++;
            maxDepth = Math.max(maxDepth, depth);
            if (nodes > Limits.JSON_NODES) {
                report(ErrorCode.SCHEMA_NODES, "", "the schema has more than " + Limits.JSON_NODES + " nodes");
                return;
            }
            if (maxDepth > Limits.JSON_DEPTH) {
                report(ErrorCode.SCHEMA_DEPTH, "", "the schema nests deeper than " + Limits.JSON_DEPTH);
                return;
            }
            for (JsonNode child : node.values()) {
                work.add(child);
                depths.add(child.isContainer() ? depth + 1 : depth);
            }
        }
    }

    private void inputRoot(JsonNode schema) {
        JsonNode type = schema.get("type");
        if (type == null || !type.isString() || !"object".equals(type.stringValue())) {
            report(
                    ErrorCode.SCHEMA_ROOT_NOT_OBJECT,
                    "",
                    "the input schema root must declare \"type\": \"object\" with properties");
        }
    }

    /**
     * Checks the value at a schema position.
     *
     * @param depth the JSON depth of {@code node} (bounded by the decoder, so recursion is bounded)
     */
    private void schemaAt(JsonNode node, String pointer, boolean root, int depth) {
        if (depth > Limits.JSON_DEPTH + 1) {
            throw new IllegalStateException("schema depth exceeds the bound checked beforehand");
        }
        if (node.isBoolean()) {
            report(
                    ErrorCode.SCHEMA_BOOLEAN_SCHEMA,
                    pointer,
                    "a boolean schema is allowed only as the value of additionalProperties");
            return;
        }
        if (!node.isObject()) {
            report(ErrorCode.SCHEMA_KEYWORD_VALUE, pointer, "a schema must be a JSON object");
            return;
        }
        String declaredType = null;
        JsonNode type = node.get("type");
        if (type != null) {
            if (type.isString() && TYPE_NAMES.contains(type.stringValue())) {
                declaredType = type.stringValue();
            } else if (type.isArray()) {
                report(
                        ErrorCode.SCHEMA_TYPE_INVALID,
                        JsonPointers.child(pointer, "type"),
                        "type must be a single type name; arrays of types are outside the subset (use anyOf)");
            } else {
                report(
                        ErrorCode.SCHEMA_TYPE_INVALID,
                        JsonPointers.child(pointer, "type"),
                        "type must be one of object, array, string, number, integer, boolean, null");
            }
        }
        boolean hasAnyOf = node.has("anyOf");
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            String keyword = entry.getKey();
            JsonNode value = entry.getValue();
            String at = JsonPointers.child(pointer, keyword);
            if (PROTO.equals(keyword)) {
                report(ErrorCode.SCHEMA_PROTO_KEY, at, "__proto__ is refused as a key");
                continue;
            }
            if (!ALLOWED.contains(keyword)) {
                report(
                        ErrorCode.SCHEMA_KEYWORD_REJECTED,
                        at,
                        "keyword '" + Text.excerpt(keyword) + "' is outside the bounded schema subset");
                continue;
            }
            if ("$schema".equals(keyword)) {
                if (!root) {
                    report(ErrorCode.SCHEMA_KEYWORD_REJECTED, at, "$schema is allowed only at the schema root");
                } else if (!value.isString() || !DRAFT_2020_12.equals(value.stringValue())) {
                    report(ErrorCode.SCHEMA_DIALECT, at, "$schema must be " + DRAFT_2020_12);
                }
                continue;
            }
            if (ANNOTATIONS.contains(keyword)) {
                annotation(keyword, value, at);
                continue;
            }
            if (hasAnyOf && !"anyOf".equals(keyword)) {
                report(
                        ErrorCode.SCHEMA_ANYOF_SIBLING,
                        at,
                        "a schema with anyOf allows only annotations beside it; move '" + keyword
                                + "' into the branches");
                continue;
            }
            Set<String> appliesTo = APPLIES_TO.get(keyword);
            if (declaredType != null && appliesTo != null && !appliesTo.contains(declaredType)) {
                report(ErrorCode.SCHEMA_KEYWORD_INAPPLICABLE, at, keyword + " can never apply to type " + declaredType);
                continue;
            }
            keyword(keyword, value, at, depth);
        }
        if ("object".equals(declaredType) && !node.has("properties")) {
            report(ErrorCode.SCHEMA_PROPERTIES_REQUIRED, pointer, "an object schema must declare properties");
        }
        if ("array".equals(declaredType) && !node.has("items")) {
            report(ErrorCode.SCHEMA_ITEMS_REQUIRED, pointer, "an array schema must declare items");
        }
    }

    private void keyword(String keyword, JsonNode value, String at, int depth) {
        switch (keyword) {
            case "type" -> {
                // Checked above, before the loop, so the declared type is known to every keyword.
            }
            case "properties" -> {
                if (!value.isObject()) {
                    report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "properties must be an object of schemas");
                    return;
                }
                for (Map.Entry<String, JsonNode> property : value.properties()) {
                    String name = property.getKey();
                    String propertyAt = JsonPointers.child(at, name);
                    if (PROTO.equals(name)) {
                        report(ErrorCode.SCHEMA_PROTO_KEY, propertyAt, "__proto__ is refused as a property name");
                        continue;
                    }
                    schemaAt(property.getValue(), propertyAt, false, depth + 2);
                }
            }
            case "required" -> required(value, at);
            case "additionalProperties" -> {
                if (!value.isBoolean()) {
                    report(
                            ErrorCode.SCHEMA_KEYWORD_VALUE,
                            at,
                            "additionalProperties must be true or false; schemas are outside the subset");
                }
            }
            case "items" -> {
                if (value.isArray()) {
                    report(
                            ErrorCode.SCHEMA_KEYWORD_VALUE,
                            at,
                            "items must be a single schema; the array form is outside the subset");
                    return;
                }
                schemaAt(value, at, false, depth + 1);
            }
            case "enum" -> {
                if (!value.isArray()) {
                    report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "enum must be an array of scalars");
                    return;
                }
                int index = 0;
                for (JsonNode member : value) {
                    if (member.isContainer()) {
                        report(
                                ErrorCode.SCHEMA_KEYWORD_VALUE,
                                JsonPointers.child(at, index),
                                "enum values must be strings, numbers, booleans or null");
                    }
                    index++;
                }
            }
            case "const" -> {
                if (value.isContainer()) {
                    report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "const must be a string, number, boolean or null");
                }
            }
            case "anyOf" -> anyOf(value, at, depth);
            default -> {
                if (COUNT_KEYWORDS.contains(keyword)) {
                    if (!isCount(value)) {
                        report(
                                ErrorCode.SCHEMA_KEYWORD_VALUE,
                                at,
                                keyword + " must be an integer from 0 to " + Integer.MAX_VALUE);
                    }
                } else if (BOUND_KEYWORDS.contains(keyword)) {
                    if (!value.isNumber()) {
                        report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, keyword + " must be a number");
                    }
                } else {
                    throw new IllegalStateException("allow-listed keyword without a check: " + keyword);
                }
            }
        }
    }

    private void required(JsonNode value, String at) {
        if (!value.isArray()) {
            report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "required must be an array of distinct strings");
            return;
        }
        Set<String> seen = new HashSet<>();
        int index = 0;
        for (JsonNode member : value) {
            String memberAt = JsonPointers.child(at, index++);
            if (!member.isString()) {
                report(ErrorCode.SCHEMA_KEYWORD_VALUE, memberAt, "required entries must be strings");
            } else if (PROTO.equals(member.stringValue())) {
                report(ErrorCode.SCHEMA_PROTO_KEY, memberAt, "__proto__ is refused as a property name");
            } else if (!seen.add(member.stringValue())) {
                report(
                        ErrorCode.SCHEMA_KEYWORD_VALUE,
                        memberAt,
                        "required lists '" + Text.excerpt(member.stringValue()) + "' twice");
            }
        }
    }

    private void anyOf(JsonNode value, String at, int depth) {
        if (!value.isArray()) {
            report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "anyOf must be an array of schemas");
            return;
        }
        if (value.size() < Limits.ANY_OF_MIN || value.size() > Limits.ANY_OF_MAX) {
            report(
                    ErrorCode.SCHEMA_ANYOF_BRANCHES,
                    at,
                    "anyOf must have " + Limits.ANY_OF_MIN + "-" + Limits.ANY_OF_MAX + " branches, has "
                            + value.size());
            return;
        }
        for (int i = 0; i < value.size(); i++) {
            schemaAt(value.get(i), JsonPointers.child(at, i), false, depth + 2);
        }
    }

    private void annotation(String keyword, JsonNode value, String at) {
        switch (keyword) {
            case "title", "description" -> {
                if (!value.isString()) {
                    report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, keyword + " must be a string");
                }
            }
            case "examples" -> {
                if (!value.isArray()) {
                    report(ErrorCode.SCHEMA_KEYWORD_VALUE, at, "examples must be an array");
                    return;
                }
                protoKeys(value, at);
            }
            default -> protoKeys(value, at);
        }
    }

    /** Annotation values are data, not schemas, but SPEC refuses {@code __proto__} anywhere. */
    private void protoKeys(JsonNode value, String at) {
        List<JsonNode> work = new ArrayList<>();
        List<String> pointers = new ArrayList<>();
        work.add(value);
        pointers.add(at);
        while (!work.isEmpty()) {
            JsonNode node = work.remove(work.size() - 1);
            String pointer = pointers.remove(pointers.size() - 1);
            if (node.isObject()) {
                for (Map.Entry<String, JsonNode> entry : node.properties()) {
                    String child = JsonPointers.child(pointer, entry.getKey());
                    if (PROTO.equals(entry.getKey())) {
                        report(ErrorCode.SCHEMA_PROTO_KEY, child, "__proto__ is refused as a key");
                    }
                    work.add(entry.getValue());
                    pointers.add(child);
                }
            } else if (node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    work.add(node.get(i));
                    pointers.add(JsonPointers.child(pointer, i));
                }
            }
        }
    }

    /** A non-negative integer in int range; {@code 2.0} counts as the integer 2 (JSON Schema). */
    private static boolean isCount(JsonNode value) {
        if (!value.isNumber()) {
            return false;
        }
        if (value.isInt()) {
            return value.intValue() >= 0;
        }
        if (value.isLong() || value.isBigInteger()) {
            return false;
        }
        BigDecimal decimal = value.decimalValue();
        if (decimal.signum() < 0 || decimal.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
            return false;
        }
        // Bounded above, so stripping zeros and the scale check are cheap.
        return decimal.signum() == 0 || decimal.stripTrailingZeros().scale() <= 0;
    }

    private void report(ErrorCode code, String pointer, String message) {
        if (truncated) {
            return;
        }
        if (problems.size() == MAX_PROBLEMS - 1) {
            truncated = true;
            problems.add(Diagnostic.error(
                    ErrorCode.SCHEMA_ISSUES_TRUNCATED,
                    prefix,
                    "more than " + (MAX_PROBLEMS - 1) + " schema problems; the rest are not reported"));
            return;
        }
        problems.add(Diagnostic.error(code, prefix + pointer, message));
    }

    // --- normalisation -------------------------------------------------------------------------

    /** A deep copy with exact bound nodes; the tree is already known to be inside the subset. */
    private static JsonNode normalize(JsonNode schema) {
        return copySchema(schema);
    }

    private static JsonNode copySchema(JsonNode schema) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, JsonNode> entry : schema.properties()) {
            String keyword = entry.getKey();
            JsonNode value = entry.getValue();
            JsonNode copy;
            if (BOUND_KEYWORDS.contains(keyword)) {
                copy = DecimalNode.valueOf(value.decimalValue());
            } else if (COUNT_KEYWORDS.contains(keyword)) {
                copy = IntNode.valueOf(value.decimalValue().intValueExact());
            } else if ("properties".equals(keyword)) {
                ObjectNode properties = JsonNodeFactory.instance.objectNode();
                for (Map.Entry<String, JsonNode> property : value.properties()) {
                    properties.set(property.getKey(), copySchema(property.getValue()));
                }
                copy = properties;
            } else if ("items".equals(keyword)) {
                copy = copySchema(value);
            } else if ("anyOf".equals(keyword)) {
                ArrayNode branches = JsonNodeFactory.instance.arrayNode();
                for (JsonNode branch : value) {
                    branches.add(copySchema(branch));
                }
                copy = branches;
            } else {
                copy = value.deepCopy();
            }
            out.set(keyword, copy);
        }
        return out;
    }
}
