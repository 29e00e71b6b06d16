package dev.skillgate.protocol.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Limits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.BinaryNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link CompactJson} writes exactly what {@code JsonMapper.writeValueAsString} wrote before decision
 * 0880, for every tree the strict decoder makes: the schemas' text in {@code ExecutionManifest} (and
 * so every revision digest over it) must not change by a byte.
 */
class CompactJsonTest {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static JsonNode decoded(String json) {
        StrictJsonDecoder.Outcome outcome =
                StrictJsonDecoder.decode(json.getBytes(StandardCharsets.UTF_8), Limits.MANIFEST_BYTES);
        assertThat(outcome).as(json).isInstanceOf(StrictJsonDecoder.Decoded.class);
        return ((StrictJsonDecoder.Decoded) outcome).root();
    }

    private static void sameAsTheMapper(JsonNode tree) {
        assertThat(CompactJson.write(tree)).isEqualTo(MAPPER.writeValueAsString(tree));
    }

    @Test
    void numbersStringsAndLiteralsAreWrittenAsTheMapperWritesThem() {
        for (String json : List.of(
                "{}",
                "[]",
                "{\"a\":1,\"b\":-0,\"c\":2147483648,\"d\":-9223372036854775809,\"e\":123456789012345678901234567890}",
                "[1.0,1.50,-0.0,1e3,1E+3,2.5e-7,1e400,0.000000001,123456789.123456789e-20]",
                "{\"s\":\"tab\\t nl\\n quote\\\" back\\\\ slash/ \\u0001 \\u001f \\u007f é ü 中 😀 \\u2028\"}",
                "{\"t\":true,\"f\":false,\"n\":null,\"nested\":{\"x\":[{\"y\":[]},{}]}}",
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":64}},"
                        + "\"required\":[\"name\"],\"additionalProperties\":false}")) {
            sameAsTheMapper(decoded(json));
        }
    }

    @Test
    void seededTreesOfEveryKindAreWrittenAsTheMapperWritesThem() {
        SplittableRandom random = new SplittableRandom(0x5eed_0880L);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder json = new StringBuilder();
            appendValue(json, random, 0);
            sameAsTheMapper(decoded(json.toString()));
        }
    }

    @Test
    void theJsonSchemaSuitesSchemasAreWrittenAsTheMapperWritesThem() throws IOException {
        Path suite = Path.of("..", "..", "shared", "testdata", "json-schema-test-suite", "draft2020-12");
        assertThat(suite).as("the shared test data next to the repository").isDirectory();
        List<Path> files;
        try (Stream<Path> list = Files.list(suite)) {
            files = list.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        int schemas = 0;
        for (Path file : files) {
            for (JsonNode group : MAPPER.readTree(file.toFile())) {
                JsonNode schema = group.get("schema");
                if (schema == null) {
                    continue;
                }
                // Through the strict decoder, so the numbers are the node kinds a manifest's are.
                StrictJsonDecoder.Outcome outcome = StrictJsonDecoder.decode(
                        MAPPER.writeValueAsString(schema).getBytes(StandardCharsets.UTF_8), Limits.MANIFEST_BYTES);
                if (outcome instanceof StrictJsonDecoder.Decoded d) {
                    sameAsTheMapper(d.root());
                    schemas++;
                }
            }
        }
        assertThat(schemas).isGreaterThan(100);
    }

    @Test
    void theDecodersDeepestTreeIsWrittenAndOneLevelMoreIsRefused() {
        String deepest = "[".repeat(Limits.JSON_DEPTH) + "1" + "]".repeat(Limits.JSON_DEPTH);
        sameAsTheMapper(decoded(deepest));

        JsonNode tooDeep = JsonNodeFactory.instance.arrayNode();
        JsonNode inner = tooDeep;
        for (int i = 1; i <= Limits.JSON_DEPTH; i++) {
            JsonNode next = JsonNodeFactory.instance.arrayNode();
            ((tools.jackson.databind.node.ArrayNode) inner).add(next);
            inner = next;
        }
        assertThatThrownBy(() -> CompactJson.write(tooDeep))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deeper than " + Limits.JSON_DEPTH);
    }

    @Test
    void aNodeKindTheDecoderNeverMakesIsRefusedNotWrittenDifferently() {
        ObjectNode tree = JsonNodeFactory.instance.objectNode();
        tree.set("bytes", BinaryNode.valueOf(new byte[] {1, 2, 3}));
        assertThatThrownBy(() -> CompactJson.write(tree))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BINARY");
        ObjectNode floats = JsonNodeFactory.instance.objectNode();
        floats.put("d", 1.5d);
        assertThatThrownBy(() -> CompactJson.write(floats))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DOUBLE");
    }

    private static final String[] STRINGS = {
        "", "a", "name", "é", "\\\"", "\\\\", "\\n", "\\u0000", "\\u00e9", "\\ud83d\\ude00", "😀", "a b", "/", "\\/"
    };
    private static final String[] NUMBERS = {
        "0",
        "-1",
        "7",
        "2147483647",
        "2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "1.0",
        "0.5",
        "-0.0",
        "3.14159",
        "1e2",
        "1E-2",
        "6.02e23",
        "1.0e+0",
        "100000000000000000000000.0"
    };

    private static void appendValue(StringBuilder json, SplittableRandom random, int depth) {
        int kind = depth >= 6 ? 2 + random.nextInt(4) : random.nextInt(6);
        switch (kind) {
            case 0 -> {
                json.append('{');
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        json.append(',');
                    }
                    json.append('"')
                            .append(STRINGS[random.nextInt(STRINGS.length)])
                            .append(i)
                            .append("\":");
                    appendValue(json, random, depth + 1);
                }
                json.append('}');
            }
            case 1 -> {
                json.append('[');
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        json.append(',');
                    }
                    appendValue(json, random, depth + 1);
                }
                json.append(']');
            }
            case 2 ->
                json.append('"').append(STRINGS[random.nextInt(STRINGS.length)]).append('"');
            case 3 -> json.append(NUMBERS[random.nextInt(NUMBERS.length)]);
            case 4 -> json.append(random.nextBoolean() ? "true" : "false");
            default -> json.append("null");
        }
    }
}
