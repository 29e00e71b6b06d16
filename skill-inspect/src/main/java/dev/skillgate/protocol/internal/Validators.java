package dev.skillgate.protocol.internal;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.DisallowUnknownKeywordFactory;
import com.networknt.schema.keyword.Keyword;
import com.networknt.schema.path.NodePath;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.shared.Text;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * The networknt side: one registry for the 2020-12 dialect, compilation of gate-admitted trees, and
 * the mapping of networknt errors to at most {@link Limits#VALIDATION_ISSUES} diagnostics with
 * stable {@code VALUE_*} codes and JSON pointers.
 *
 * <p>The registry admits only the 2020-12 dialect (any other {@code $schema} throws) and turns
 * unknown keywords into load errors, behind the gate's own allow-list. Type coercion stays off.
 * Compiled schemas are immutable after {@link Schema#initializeValidators()} and shared across
 * threads (networknt README, "Performance Considerations").
 */
public final class Validators {

    /**
     * Draft 2020-12 cut down to the subset: the keyword map is exactly the gate's allow-list (taken
     * from the stock dialect's resolved keywords) with the bounded {@code anyOf}, and no vocabulary
     * may add keywords back; anything else is unknown, and unknown keywords fail the load. A second
     * line behind the gate, never the first.
     */
    private static final Dialect DIALECT = subsetDialect();

    private static Dialect subsetDialect() {
        Dialect stock = Dialects.getDraft202012();
        Map<String, Keyword> subset = new HashMap<>();
        for (Map.Entry<String, Keyword> entry : stock.getKeywords().entrySet()) {
            if (SubsetGate.ALLOWED.contains(entry.getKey())) {
                subset.put(entry.getKey(), entry.getValue());
            }
        }
        subset.put(BoundedAnyOf.INSTANCE.getValue(), BoundedAnyOf.INSTANCE);
        return Dialect.builder(stock)
                .vocabularies(vocabularies -> vocabularies.clear())
                .keywords(keywords -> {
                    keywords.clear();
                    keywords.putAll(subset);
                })
                .unknownKeywordFactory(DisallowUnknownKeywordFactory.getInstance())
                .build();
    }

    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDialect(
            DIALECT,
            builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder()
                    .typeLoose(false)
                    .failFast(false)
                    .build()));

    private static final Map<String, ErrorCode> CODES = Map.ofEntries(
            Map.entry("type", ErrorCode.VALUE_TYPE),
            Map.entry("required", ErrorCode.VALUE_REQUIRED),
            Map.entry("additionalProperties", ErrorCode.VALUE_ADDITIONAL_PROPERTY),
            Map.entry("enum", ErrorCode.VALUE_ENUM),
            Map.entry("const", ErrorCode.VALUE_CONST),
            Map.entry("minLength", ErrorCode.VALUE_MIN_LENGTH),
            Map.entry("maxLength", ErrorCode.VALUE_MAX_LENGTH),
            Map.entry("minItems", ErrorCode.VALUE_MIN_ITEMS),
            Map.entry("maxItems", ErrorCode.VALUE_MAX_ITEMS),
            Map.entry("minimum", ErrorCode.VALUE_MINIMUM),
            Map.entry("maximum", ErrorCode.VALUE_MAXIMUM),
            Map.entry("exclusiveMinimum", ErrorCode.VALUE_EXCLUSIVE_MINIMUM),
            Map.entry("exclusiveMaximum", ErrorCode.VALUE_EXCLUSIVE_MAXIMUM),
            Map.entry("anyOf", ErrorCode.VALUE_ANY_OF));

    private Validators() {}

    /**
     * Compiles a gate-admitted tree eagerly.
     *
     * @return the compiled schema, or empty when networknt refuses it (which would mean the gate
     *     admitted something it should not have; callers fail closed)
     */
    public static Optional<Schema> compile(JsonNode admitted) {
        Objects.requireNonNull(admitted, "admitted");
        try {
            Schema schema = REGISTRY.getSchema(admitted);
            schema.initializeValidators();
            return Optional.of(schema);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Validates a decoded value; an empty list means valid. */
    public static List<Diagnostic> validate(Schema schema, JsonNode instance) {
        List<Error> errors = schema.validate(instance);
        if (errors.isEmpty()) {
            return List.of();
        }
        return issues(errors);
    }

    /** Maps networknt errors (one per failed anyOf, see {@link BoundedAnyOf}) to at most 20 issues. */
    static List<Diagnostic> issues(List<Error> errors) {
        int limit = Limits.VALIDATION_ISSUES;
        List<Diagnostic> out = new ArrayList<>(Math.min(errors.size(), limit));
        for (Error error : errors) {
            if (out.size() == limit) {
                // A 21st issue exists: the last slot says so instead.
                out.set(
                        limit - 1,
                        Diagnostic.error(
                                ErrorCode.VALUE_ISSUES_TRUNCATED,
                                "",
                                "more than " + (limit - 1) + " issues; the rest are not reported"));
                break;
            }
            out.add(toIssue(error));
        }
        return List.copyOf(out);
    }

    private static Diagnostic toIssue(Error error) {
        String keyword = error.getKeyword();
        NodePath instance = error.getInstanceLocation();
        ErrorCode code = CODES.get(keyword);
        if (code == null) {
            throw new IllegalStateException("networknt reported a keyword the gate never admits: " + keyword);
        }
        String at = pointer(instance, instance.getNameCount());
        return switch (code) {
            case VALUE_TYPE -> Diagnostic.error(code, at, typeMessage(error));
            case VALUE_ANY_OF ->
                Diagnostic.error(code, at, "the value matches none of the " + branchCount(error) + " anyOf branches");
            case VALUE_REQUIRED ->
                Diagnostic.error(code, at, "the required property '" + Text.excerpt(nameOf(error)) + "' is missing");
            case VALUE_ADDITIONAL_PROPERTY ->
                Diagnostic.error(
                        code,
                        JsonPointers.child(at, nameOf(error)),
                        "the property '" + Text.excerpt(nameOf(error)) + "' is not allowed here");
            case VALUE_ENUM -> Diagnostic.error(code, at, "the value is not one of the allowed enum values");
            case VALUE_CONST -> Diagnostic.error(code, at, "the value differs from the const value");
            case VALUE_MIN_LENGTH ->
                Diagnostic.error(code, at, "the string is shorter than " + bound(error) + " code points");
            case VALUE_MAX_LENGTH ->
                Diagnostic.error(code, at, "the string is longer than " + bound(error) + " code points");
            case VALUE_MIN_ITEMS -> Diagnostic.error(code, at, "the array has fewer than " + bound(error) + " items");
            case VALUE_MAX_ITEMS -> Diagnostic.error(code, at, "the array has more than " + bound(error) + " items");
            case VALUE_MINIMUM -> Diagnostic.error(code, at, "the number is below the minimum " + bound(error));
            case VALUE_MAXIMUM -> Diagnostic.error(code, at, "the number is above the maximum " + bound(error));
            case VALUE_EXCLUSIVE_MINIMUM ->
                Diagnostic.error(code, at, "the number is not above the exclusive minimum " + bound(error));
            case VALUE_EXCLUSIVE_MAXIMUM ->
                Diagnostic.error(code, at, "the number is not below the exclusive maximum " + bound(error));
            default -> throw new IllegalStateException("unmapped code " + code);
        };
    }

    private static String typeMessage(Error error) {
        Object[] args = error.getArguments();
        if (args != null && args.length >= 2) {
            return "expected " + Text.excerpt(String.valueOf(args[1])) + ", found "
                    + Text.excerpt(String.valueOf(args[0]));
        }
        return "the value has the wrong type";
    }

    /** The schema's bound, quoted from the schema (never from the data), shortened. */
    private static String bound(Error error) {
        JsonNode schemaNode = error.getSchemaNode();
        if (schemaNode != null && schemaNode.isNumber()) {
            return Text.excerpt(schemaNode.asString());
        }
        Object[] args = error.getArguments();
        return args != null && args.length > 0 ? Text.excerpt(String.valueOf(args[0])) : "the bound";
    }

    private static String nameOf(Error error) {
        String property = error.getProperty();
        if (property != null) {
            return property;
        }
        Object[] args = error.getArguments();
        return args != null && args.length > 0 ? String.valueOf(args[0]) : "";
    }

    /** The JSON pointer of the first {@code segments} elements of an instance location. */
    private static String pointer(NodePath instance, int segments) {
        StringBuilder out = new StringBuilder();
        int n = Math.min(segments, instance.getNameCount());
        for (int i = 0; i < n; i++) {
            out.append('/').append(JsonPointers.escape(String.valueOf(instance.getElement(i))));
        }
        return out.toString();
    }

    private static int branchCount(Error error) {
        JsonNode branches = error.getSchemaNode();
        return branches != null && branches.isArray() ? branches.size() : 0;
    }
}
