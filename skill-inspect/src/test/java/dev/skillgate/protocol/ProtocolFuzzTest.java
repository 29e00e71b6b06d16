package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.protocol.internal.StrictJsonDecoder;
import dev.skillgate.protocol.internal.SubsetGate;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes the schema gate and validation over (schema bytes, data bytes).
 *
 * <p>Properties checked on every input: nothing throws; an admitted schema uses only allow-listed
 * keywords at schema positions (checked by an independent walk); at most 20 issues, each with a
 * {@code JSON_*}/{@code VALUE_*} code and a well-formed JSON pointer; rejections carry schema or
 * JSON codes only; when the data decodes strictly, our verdict equals stock networknt's (default
 * 2020-12 dialect, its own anyOf) on the same admitted tree; an accepted invocation's digest is the
 * SHA-256 of its bytes. Runs its seeds in
 * regression mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class ProtocolFuzzTest {
    /** Stock networknt for draft 2020-12: the differential's reference, untouched by our dialect. */
    private static final SchemaRegistry STOCK = SchemaRegistry.withDialect(Dialects.getDraft202012());

    private static final JsonMapper PLAIN = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private static final Set<String> ALLOWED = Set.of(
            "$schema",
            "title",
            "description",
            "default",
            "examples",
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

    /** Raw bytes: the schema, a NUL byte, the data (NUL is never valid in strict JSON). */
    @FuzzTest(maxDuration = "30s")
    void rawSchemaAndData(FuzzedDataProvider provider) {
        byte[] all = provider.consumeRemainingAsBytes();
        int split = indexOf(all, (byte) 0);
        byte[] schema = split < 0 ? all : Arrays.copyOfRange(all, 0, split);
        byte[] data = split < 0 ? new byte[0] : Arrays.copyOfRange(all, split + 1, all.length);
        check(schema, data);
    }

    /** Structured: schema and data built from fuzzer choices, so most inputs are well-formed JSON. */
    @FuzzTest(maxDuration = "30s")
    void structuredSchemaAndData(FuzzedDataProvider provider) {
        StringBuilder schema = new StringBuilder();
        schema(provider, schema, 0);
        StringBuilder data = new StringBuilder();
        value(provider, data, 0);
        check(
                schema.toString().getBytes(StandardCharsets.UTF_8),
                data.toString().getBytes(StandardCharsets.UTF_8));
    }

    static void check(byte[] schemaBytes, byte[] data) {
        SchemaCompilation output = SchemaGate.compile(SchemaRole.OUTPUT, schemaBytes);
        SchemaCompilation input = SchemaGate.compile(SchemaRole.INPUT, schemaBytes);
        for (SchemaCompilation compilation : List.of(output, input)) {
            if (!compilation.isCompiled()) {
                assertThat(compilation.diagnostics()).isNotEmpty().hasSizeLessThanOrEqualTo(Limits.VALIDATION_ISSUES);
                assertThat(compilation.diagnostics())
                        .allSatisfy(d -> assertThat(d.code().group()).isIn(ErrorGroup.SCHEMA, ErrorGroup.JSON));
            }
        }
        if (input.isCompiled()) {
            assertThat(output.isCompiled())
                    .as("an input schema is also a valid output schema")
                    .isTrue();
        }
        if (!output.isCompiled()) {
            return;
        }
        JsonNode tree =
                ((StrictJsonDecoder.Decoded) StrictJsonDecoder.decode(schemaBytes, Limits.MANIFEST_BYTES)).root();
        onlyAllowedKeywords(tree, true);

        CompiledSchema compiled = output.compiled().orElseThrow();
        Validation<ValidatedResult> result = compiled.checkResult(data, new OutputLimit(OutputLimit.MAX_BYTES));
        wellFormed(result.issues());

        StrictJsonDecoder.Outcome decoded = StrictJsonDecoder.decode(data, OutputLimit.MAX_BYTES);
        if (decoded instanceof StrictJsonDecoder.Decoded ok) {
            // Differential: stock networknt on the same admitted tree, data read by plain Jackson.
            JsonNode admitted = ((SubsetGate.Admitted) SubsetGate.check(tree, false, "")).normalized();
            Schema stock = STOCK.getSchema(admitted);
            JsonNode plainData = PLAIN.readTree(data);
            assertThat(result.isValid()).isEqualTo(stock.validate(plainData).isEmpty());
            assertThat(stock.validate(ok.root()).isEmpty()).isEqualTo(result.isValid());
        } else {
            assertThat(result.isValid()).isFalse();
            assertThat(result.issues()).hasSize(1);
            assertThat(result.issues().get(0).code().group()).isEqualTo(ErrorGroup.JSON);
        }

        if (input.isCompiled()) {
            Validation<Invocation> invocation = input.compiled().orElseThrow().checkInvocation(data);
            wellFormed(invocation.issues());
            invocation.valueIfValid().ifPresent(valid -> {
                assertThat(valid.bytes()).isEqualTo(data);
                assertThat(valid.digest()).isEqualTo(Sha256Digest.hash(data));
            });
        }
    }

    private static void wellFormed(List<Diagnostic> issues) {
        assertThat(issues).hasSizeLessThanOrEqualTo(Limits.VALIDATION_ISSUES);
        for (Diagnostic issue : issues) {
            assertThat(issue.code().group()).isIn(ErrorGroup.JSON, ErrorGroup.VALUE);
            assertThat(issue.isError()).isTrue();
            assertThat(issue.message().length()).isLessThanOrEqualTo(Diagnostic.MAX_MESSAGE_LENGTH + 1);
            if (issue.location().length() < Diagnostic.MAX_LOCATION_LENGTH) {
                assertThat(issue.location()).matches("(/([^/~]|~[01])*)*");
            }
        }
    }

    /** Independent of the gate's code: walks schema positions and checks every keyword. */
    static void onlyAllowedKeywords(JsonNode schema, boolean root) {
        assertThat(schema.isObject()).as("admitted schemas are objects").isTrue();
        for (Map.Entry<String, JsonNode> entry : schema.properties()) {
            String keyword = entry.getKey();
            assertThat(ALLOWED).as("admitted keyword").contains(keyword);
            assertThat(keyword.equals("$schema") && !root)
                    .as("$schema below the root")
                    .isFalse();
            JsonNode value = entry.getValue();
            switch (keyword) {
                case "properties" ->
                    value.properties().forEach(p -> {
                        assertThat(p.getKey()).isNotEqualTo("__proto__");
                        onlyAllowedKeywords(p.getValue(), false);
                    });
                case "items" -> onlyAllowedKeywords(value, false);
                case "anyOf" -> {
                    assertThat(value.size()).isBetween(Limits.ANY_OF_MIN, Limits.ANY_OF_MAX);
                    value.forEach(branch -> onlyAllowedKeywords(branch, false));
                }
                case "additionalProperties" -> assertThat(value.isBoolean()).isTrue();
                case "enum" -> value.forEach(v -> assertThat(v.isContainer()).isFalse());
                case "const" -> assertThat(value.isContainer()).isFalse();
                case "type" -> assertThat(value.isString()).isTrue();
                default -> {}
            }
        }
    }

    private static final String[] KEYWORDS = {
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
        "anyOf",
        "title",
        "description",
        "default",
        "examples",
        "$schema",
        "$ref",
        "pattern",
        "format",
        "oneOf",
        "allOf",
        "not",
        "prefixItems",
        "multipleOf",
        "uniqueItems",
        "__proto__",
        "$defs"
    };

    private static final String[] TYPES = {"object", "array", "string", "number", "integer", "boolean", "null", "x"};

    private static void schema(FuzzedDataProvider p, StringBuilder out, int depth) {
        if (depth > 6 || p.remainingBytes() == 0) {
            out.append(p.consumeBoolean() ? "{}" : "true");
            return;
        }
        out.append('{');
        int n = p.consumeInt(0, 5);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                out.append(',');
            }
            String keyword = p.pickValue(KEYWORDS);
            out.append('"').append(keyword).append("\":");
            switch (keyword) {
                case "type" -> out.append('"').append(p.pickValue(TYPES)).append('"');
                case "properties" -> {
                    out.append('{');
                    int m = p.consumeInt(0, 3);
                    for (int k = 0; k < m; k++) {
                        out.append(k > 0 ? "," : "").append("\"p").append(k).append("\":");
                        schema(p, out, depth + 1);
                    }
                    out.append('}');
                }
                case "items", "not" -> schema(p, out, depth + 1);
                case "anyOf", "oneOf", "allOf", "prefixItems" -> {
                    out.append('[');
                    int m = p.consumeInt(0, 5);
                    for (int k = 0; k < m; k++) {
                        out.append(k > 0 ? "," : "");
                        schema(p, out, depth + 1);
                    }
                    out.append(']');
                }
                case "required" ->
                    out.append("[\"p0\",\"p").append(p.consumeInt(0, 3)).append("\"]");
                case "additionalProperties" -> {
                    if (p.consumeBoolean()) {
                        out.append(p.consumeBoolean());
                    } else {
                        schema(p, out, depth + 1);
                    }
                }
                case "enum", "examples" -> {
                    out.append('[');
                    int m = p.consumeInt(0, 4);
                    for (int k = 0; k < m; k++) {
                        out.append(k > 0 ? "," : "");
                        value(p, out, 3);
                    }
                    out.append(']');
                }
                case "$schema" ->
                    out.append(p.consumeBoolean() ? "\"https://json-schema.org/draft/2020-12/schema\"" : "\"x\"");
                default -> value(p, out, depth + 2);
            }
        }
        out.append('}');
    }

    private static final String[] NUMBERS = {
        "0",
        "1",
        "-1",
        "1.0",
        "2.5",
        "1e2",
        "1E+400",
        "-1e-400",
        "9223372036854775808",
        "1e999999999",
        "0.1",
        "50",
        "2147483647",
        "-0",
        "3.0000000000000000001"
    };

    private static void value(FuzzedDataProvider p, StringBuilder out, int depth) {
        int kind = depth > 4 ? p.consumeInt(0, 3) : p.consumeInt(0, 6);
        switch (kind) {
            case 0 -> out.append(p.pickValue(NUMBERS));
            case 1 -> out.append(p.pickValue(new String[] {"true", "false", "null"}));
            case 2, 3 -> {
                String s = p.consumeString(8);
                out.append('"');
                for (int i = 0; i < s.length(); i++) {
                    char c = s.charAt(i);
                    if (c == '"' || c == '\\' || c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
                out.append('"');
            }
            case 4 -> {
                out.append('[');
                int m = p.consumeInt(0, 3);
                for (int k = 0; k < m; k++) {
                    out.append(k > 0 ? "," : "");
                    value(p, out, depth + 1);
                }
                out.append(']');
            }
            default -> {
                out.append('{');
                int m = p.consumeInt(0, 3);
                for (int k = 0; k < m; k++) {
                    out.append(k > 0 ? "," : "")
                            .append("\"p")
                            .append(p.consumeInt(0, 3))
                            .append("\":");
                    value(p, out, depth + 1);
                }
                out.append('}');
            }
        }
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
