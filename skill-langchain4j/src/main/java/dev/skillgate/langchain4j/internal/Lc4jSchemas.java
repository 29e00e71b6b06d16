package dev.skillgate.langchain4j.internal;

import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tools.SchemaReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Maps a gated input schema onto LangChain4j's {@link JsonObjectSchema}: the root's {@code type},
 * {@code properties}, {@code required}, {@code additionalProperties} and {@code description} onto
 * the typed fields, each property as a {@link JsonRawSchema} holding that subschema's exact JSON
 * (numbers as written), so no keyword below the root is lost. Root annotations the type has no
 * field for are reported as dropped; any other root keyword makes the schema not expressible.
 */
public final class Lc4jSchemas {
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private static final Set<String> ROOT_ANNOTATIONS = Set.of("title", "default", "examples", "$schema");

    private Lc4jSchemas() {}

    /** A mapped schema with its report, or only the report when it cannot be offered. */
    public record Mapping(Optional<JsonObjectSchema> schema, SchemaReport report) {}

    /** Maps {@code schemaJson} (an accepted INPUT schema) for the tool {@code skill}. */
    public static Mapping map(String skill, String schemaJson) {
        JsonNode root;
        try {
            root = MAPPER.readTree(schemaJson);
        } catch (RuntimeException e) {
            return refused(skill, "", "the schema is not readable JSON");
        }
        if (!root.isObject() || !"object".equals(text(root.get("type")))) {
            return refused(skill, "", "the root is not an object schema");
        }
        JsonObjectSchema.Builder b = JsonObjectSchema.builder();
        List<String> dropped = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            switch (key) {
                case "type" -> {}
                case "description" -> {
                    if (!value.isString()) {
                        return refused(skill, "/description", "a description that is not a string");
                    }
                    b.description(value.asString());
                }
                case "properties" -> {
                    if (!value.isObject()) {
                        return refused(skill, "/properties", "properties that are not an object");
                    }
                    for (Map.Entry<String, JsonNode> p : value.properties()) {
                        b.addProperty(p.getKey(), JsonRawSchema.from(MAPPER.writeValueAsString(p.getValue())));
                    }
                }
                case "required" -> {
                    List<String> names = new ArrayList<>();
                    for (JsonNode n : value) {
                        names.add(n.asString());
                    }
                    b.required(names);
                }
                case "additionalProperties" -> {
                    if (!value.isBoolean()) {
                        return refused(skill, "/additionalProperties", "a non-boolean additionalProperties");
                    }
                    b.additionalProperties(value.asBoolean());
                }
                default -> {
                    if (!ROOT_ANNOTATIONS.contains(key)) {
                        return refused(skill, "/" + key, "LangChain4j's JsonObjectSchema has no field for it");
                    }
                    dropped.add("/" + key);
                }
            }
        }
        if (!root.has("properties")) {
            return refused(skill, "", "an object schema without properties");
        }
        return new Mapping(Optional.of(b.build()), new SchemaReport(skill, true, dropped, List.of()));
    }

    private static String text(JsonNode node) {
        return node != null && node.isString() ? node.asString() : "";
    }

    private static Mapping refused(String skill, String pointer, String why) {
        return new Mapping(
                Optional.empty(),
                new SchemaReport(
                        skill,
                        false,
                        List.of(),
                        List.of(Diagnostic.error(ErrorCode.SCHEMA_NOT_EXPRESSIBLE, pointer, why))));
    }
}
