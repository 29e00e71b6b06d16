package dev.skillgate.protocol.internal;

import dev.skillgate.model.Limits;
import java.io.StringWriter;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;

/**
 * Writes a decoded tree as compact JSON text with Jackson's streaming generator, the same text
 * {@code JsonMapper.writeValueAsString} gives for the node kinds {@link StrictJsonDecoder} makes
 * (decision 0880).
 *
 * <p>Why not a {@code JsonMapper}: building one loads Jackson's databind configuration, its
 * {@code java.time} module and the JDK's calendar and CLDR locale data — about 50–70 ms of a cold
 * {@code skillgate run}, for a tree of plain objects, arrays, strings, numbers, booleans and nulls.
 * The generator alone writes the same bytes (same escaping, numbers exactly as decoded: integers by
 * value, decimals as {@link java.math.BigDecimal#toString()}).
 *
 * <p>Bounded: containers nest at most {@link Limits#JSON_DEPTH} deep (the decoder's own bound), and
 * an unexpected node kind or a deeper tree is refused with {@link IllegalArgumentException} rather
 * than written differently.
 */
public final class CompactJson {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private CompactJson() {}

    /**
     * The tree as compact JSON text.
     *
     * @throws IllegalArgumentException if containers nest deeper than {@link Limits#JSON_DEPTH} or holds
     *     a node kind the strict decoder never makes (binary, POJO, missing)
     */
    public static String write(JsonNode tree) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
            value(g, tree, 0);
        }
        return out.toString();
    }

    /** {@code depth}: how many containers hold this node (0 for the root). */
    private static void value(JsonGenerator g, JsonNode node, int depth) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                checkDepth(depth);
                g.writeStartObject();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    g.writeName(e.getKey());
                    value(g, e.getValue(), depth + 1);
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                checkDepth(depth);
                g.writeStartArray();
                for (int i = 0; i < node.size(); i++) {
                    value(g, node.get(i), depth + 1);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.stringValue());
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case NULL -> g.writeNull();
            case NUMBER -> number(g, node);
            default -> throw new IllegalArgumentException("unexpected node kind " + node.getNodeType());
        }
    }

    private static void checkDepth(int enclosing) {
        if (enclosing >= Limits.JSON_DEPTH) {
            throw new IllegalArgumentException("containers nested deeper than " + Limits.JSON_DEPTH);
        }
    }

    private static void number(JsonGenerator g, JsonNode node) {
        switch (node.numberType()) {
            case INT -> g.writeNumber(node.intValue());
            case LONG -> g.writeNumber(node.longValue());
            case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
            case BIG_DECIMAL -> g.writeNumber(node.decimalValue());
            default -> throw new IllegalArgumentException("unexpected number kind " + node.numberType());
        }
    }
}
