package dev.skillgate.consent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.internal.JsonException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class StrictJsonReaderTest {
    private static final StrictJsonReader.Bounds BOUNDS = new StrictJsonReader.Bounds(4096, 4, 64, 32);

    private static JsonValue parse(String text) throws JsonException {
        return StrictJsonReader.parse(text.getBytes(StandardCharsets.UTF_8), BOUNDS);
    }

    private static JsonValue parse(byte[] bytes) throws JsonException {
        return StrictJsonReader.parse(bytes, BOUNDS);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("", Reason.EMPTY),
                Arguments.of("  \n\t ", Reason.EMPTY),
                Arguments.of("{\"a\":1,\"a\":2}", Reason.DUPLICATE_KEY),
                Arguments.of("{\"a\":1,\"\\u0061\":2}", Reason.DUPLICATE_KEY),
                Arguments.of("NaN", Reason.SYNTAX),
                Arguments.of("Infinity", Reason.SYNTAX),
                Arguments.of("-Infinity", Reason.NUMBER),
                Arguments.of("+1", Reason.SYNTAX),
                Arguments.of("01", Reason.TRAILING_DATA),
                Arguments.of("1.", Reason.NUMBER),
                Arguments.of(".5", Reason.SYNTAX),
                Arguments.of("1e", Reason.NUMBER),
                Arguments.of("1e+", Reason.NUMBER),
                Arguments.of("-", Reason.NUMBER),
                Arguments.of("1".repeat(65), Reason.NUMBER),
                Arguments.of("0x10", Reason.TRAILING_DATA),
                Arguments.of("{} {}", Reason.TRAILING_DATA),
                Arguments.of("[1,]", Reason.SYNTAX),
                Arguments.of("{\"a\":1,}", Reason.SYNTAX),
                Arguments.of("{a:1}", Reason.SYNTAX),
                Arguments.of("{'a':1}", Reason.SYNTAX),
                Arguments.of("[1 2]", Reason.SYNTAX),
                Arguments.of("tru", Reason.SYNTAX),
                Arguments.of("nul", Reason.SYNTAX),
                Arguments.of("True", Reason.SYNTAX),
                Arguments.of("\"abc", Reason.SYNTAX),
                Arguments.of("\"a\u0001b\"", Reason.SYNTAX),
                Arguments.of("\"a\tb\"", Reason.SYNTAX),
                Arguments.of("\"\\x41\"", Reason.SYNTAX),
                Arguments.of("\"\\u12\"", Reason.SYNTAX),
                Arguments.of("\"\\ud800\"", Reason.SYNTAX),
                Arguments.of("\"\\ud800\\u0041\"", Reason.SYNTAX),
                Arguments.of("\"\\udc00\"", Reason.SYNTAX),
                Arguments.of("[[[[[1]]]]]", Reason.DEPTH),
                Arguments.of("{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}", Reason.DEPTH),
                Arguments.of("\"" + "x".repeat(33) + "\"", Reason.STRING_TOO_LONG),
                Arguments.of("[" + "1,".repeat(64) + "1]", Reason.NODES),
                Arguments.of("/* c */ 1", Reason.SYNTAX),
                Arguments.of("\u00a01", Reason.SYNTAX),
                Arguments.of("1\u000b", Reason.TRAILING_DATA));
    }

    @ParameterizedTest
    @MethodSource("rejected")
    void rejectsWithASpecificReason(String text, Reason reason) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOfSatisfying(
                        JsonException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }

    static Stream<Arguments> badBytes() {
        return Stream.of(
                Arguments.of(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '1'}, Reason.BOM),
                Arguments.of(new byte[] {'"', (byte) 0xC0, (byte) 0xAF, '"'}, Reason.INVALID_UTF8), // overlong '/'
                Arguments.of(
                        new byte[] {'"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"'}, Reason.INVALID_UTF8), // surrogate
                Arguments.of(
                        new byte[] {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'}, Reason.INVALID_UTF8),
                Arguments.of(new byte[] {'"', (byte) 0xE2, (byte) 0x82, '"'}, Reason.INVALID_UTF8), // truncated
                Arguments.of(new byte[] {'"', (byte) 0xFF, '"'}, Reason.INVALID_UTF8),
                Arguments.of(new byte[] {'"', (byte) 0x80, '"'}, Reason.INVALID_UTF8),
                Arguments.of(new byte[] {'1', 0}, Reason.TRAILING_DATA),
                Arguments.of(new byte[4097], Reason.TOO_LARGE));
    }

    @ParameterizedTest
    @MethodSource("badBytes")
    void rejectsBadBytes(byte[] bytes, Reason reason) {
        assertThatThrownBy(() -> parse(bytes))
                .isInstanceOfSatisfying(
                        JsonException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }

    @Test
    void messagesNeverQuoteTheInput() {
        String secret = "sk-live-0123456789abcdef";
        for (String text :
                List.of("{\"" + secret + "\":1,\"" + secret + "\":2}", "[\"" + secret + "\" \"x\"]", secret)) {
            assertThatThrownBy(() -> parse(text))
                    .satisfies(e ->
                            assertThat(e.getMessage()).doesNotContain(secret).doesNotContain("sk-live"));
        }
    }

    @Test
    void acceptsTheBoundsExactly() throws JsonException {
        assertThat(parse("[[[[1]]]]")).isInstanceOf(JsonValue.JArray.class);
        assertThat(parse("\"" + "x".repeat(32) + "\"")).isEqualTo(new JsonValue.JString("x".repeat(32)));
        assertThat(parse("[" + "1,".repeat(62) + "1]")).isInstanceOf(JsonValue.JArray.class);
        assertThat(parse(new byte[4096 - 2].length == 4094 ? padded(4096) : new byte[0]))
                .isEqualTo(new JsonValue.JNumber("1"));
    }

    private static byte[] padded(int size) {
        byte[] out = new byte[size];
        java.util.Arrays.fill(out, (byte) ' ');
        out[0] = '1';
        return out;
    }

    @Test
    void stringsAreExactAndMembersKeepTheirOrder() throws JsonException {
        JsonValue v = parse("{\"z\":\"\\u00e9\\n\\/\\\\\\\"\",\"a\":\"e\u0301\",\"m\":\"\\ud83d\\ude00\"}");
        Map<String, JsonValue> expected = new LinkedHashMap<>();
        expected.put("z", new JsonValue.JString("\u00e9\n/\\\""));
        expected.put("a", new JsonValue.JString("e\u0301")); // not normalised to U+00E9
        expected.put("m", new JsonValue.JString("\ud83d\ude00"));
        assertThat(v).isEqualTo(new JsonValue.JObject(expected));
        assertThat(((JsonValue.JObject) v).members().keySet()).containsExactly("z", "a", "m");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0", "1.5e-300", "1E400", "-12.000", "123456789012345678901234567890"})
    void numbersKeepTheirExactLexeme(String lexeme) throws JsonException {
        assertThat(parse(lexeme)).isEqualTo(new JsonValue.JNumber(lexeme));
    }

    @Test
    void writerOutputReadsBackEqual() throws JsonException {
        JsonValue v = parse(
                "{\"a\":[1,-2.5e3,true,false,null,{}],\"b\":\"ctl\\u0001\\u001f\\t\\\"q\\\\\",\"c\":[],\"d\":\"\\ud83d\\ude00\"}");
        byte[] written = StrictJsonWriter.write(v);
        assertThat(StrictJsonReader.parse(written, BOUNDS)).isEqualTo(v);
        assertThat(StrictJsonWriter.write(StrictJsonReader.parse(written, BOUNDS)))
                .isEqualTo(written);
    }

    @Test
    void writerRefusesAnUnpairedSurrogate() {
        assertThatThrownBy(() -> StrictJsonWriter.write(new JsonValue.JString("a\ud800b")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writerBoundsDepth() {
        JsonValue v = new JsonValue.JArray(List.of());
        for (int i = 0; i < StrictJsonWriter.MAX_DEPTH + 1; i++) {
            v = new JsonValue.JArray(List.of(v));
        }
        JsonValue deep = v;
        assertThatThrownBy(() -> StrictJsonWriter.write(deep)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deepInputFailsOnTheDepthBoundNotTheStack() {
        StrictJsonReader.Bounds wide = new StrictJsonReader.Bounds(1 << 20, 16, 1 << 20, 32);
        byte[] deep = "[".repeat(500_000).getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> StrictJsonReader.parse(deep, wide))
                .isInstanceOfSatisfying(
                        JsonException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DEPTH));
    }
}
