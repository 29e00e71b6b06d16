package dev.skillgate.protocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

class StrictJsonDecoderTest {

    static StrictJsonDecoder.Outcome decode(String text) {
        return StrictJsonDecoder.decode(text.getBytes(StandardCharsets.UTF_8), Limits.INVOCATION_BYTES);
    }

    static StrictJsonDecoder.Outcome decodeHex(String before, String hex, String after) {
        byte[] a = before.getBytes(StandardCharsets.UTF_8);
        byte[] m = HexFormat.of().parseHex(hex);
        byte[] c = after.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[a.length + m.length + c.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(m, 0, all, a.length, m.length);
        System.arraycopy(c, 0, all, a.length + m.length, c.length);
        return StrictJsonDecoder.decode(all, Limits.INVOCATION_BYTES);
    }

    static JsonNode decoded(String text) {
        StrictJsonDecoder.Outcome outcome = decode(text);
        assertThat(outcome).isInstanceOf(StrictJsonDecoder.Decoded.class);
        return ((StrictJsonDecoder.Decoded) outcome).root();
    }

    static StrictJsonDecoder.Failed failed(StrictJsonDecoder.Outcome outcome) {
        assertThat(outcome).isInstanceOf(StrictJsonDecoder.Failed.class);
        return (StrictJsonDecoder.Failed) outcome;
    }

    @Test
    void decodesOneValueOfEveryKind() {
        JsonNode root = decoded(" {\"s\":\"x\\u00e9\\ud83d\\ude00\",\"i\":-7,\"t\":true,\"f\":false,\"n\":null,"
                + "\"a\":[1,[2,{}]],\"e\":\"\\u0000\"}\n");
        assertThat(root.get("s").stringValue()).isEqualTo("x\u00e9\uD83D\uDE00");
        assertThat(root.get("i").intValue()).isEqualTo(-7);
        assertThat(root.get("a").get(1).get(1).isObject()).isTrue();
        assertThat(root.get("e").stringValue()).isEqualTo("\u0000");
        assertThat(((StrictJsonDecoder.Decoded) decode("[1,[2,{}]]")).nodes()).isEqualTo(5);
    }

    @Test
    void scalarRootsAreValues() {
        assertThat(decoded("3").intValue()).isEqualTo(3);
        assertThat(decoded("\"x\"").stringValue()).isEqualTo("x");
        assertThat(decoded(" null ").isNull()).isTrue();
    }

    @Test
    void numbersAreExact() {
        JsonNode root = decoded("[1.0000000000000000001, 123456789012345678901234567890, 9007199254740993,"
                + " 1e400, 1.0, -0.0, 2147483648, 1e-999999999]");
        assertThat(root.get(0).decimalValue()).isEqualByComparingTo(new BigDecimal("1.0000000000000000001"));
        assertThat(root.get(1).bigIntegerValue()).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(root.get(2).longValue()).isEqualTo(9007199254740993L);
        assertThat(root.get(3).isBigDecimal()).isTrue();
        assertThat(root.get(3).decimalValue()).isEqualByComparingTo(new BigDecimal("1e400"));
        assertThat(root.get(4).isBigDecimal()).isTrue();
        assertThat(root.get(4).decimalValue().scale()).isEqualTo(1);
        assertThat(root.get(6).isLong()).isTrue();
        assertThat(root.get(7).decimalValue()).isEqualByComparingTo(new BigDecimal("1e-999999999"));
        for (JsonNode number : root) {
            assertThat(number.isDouble()).isFalse();
        }
    }

    @Test
    void sizeBoundIsExact() {
        String exactly = "\"" + "a".repeat(98) + "\"";
        assertThat(exactly).hasSize(100);
        assertThat(StrictJsonDecoder.decode(exactly.getBytes(StandardCharsets.UTF_8), 100))
                .isInstanceOf(StrictJsonDecoder.Decoded.class);
        StrictJsonDecoder.Failed tooLarge =
                failed(StrictJsonDecoder.decode((exactly + " ").getBytes(StandardCharsets.UTF_8), 100));
        assertThat(tooLarge.code()).isEqualTo(ErrorCode.JSON_TOO_LARGE);
    }

    @Test
    void depthThirtyTwoIsAcceptedAndThirtyThreeIsNot() {
        assertThat(decode("[".repeat(32) + "]".repeat(32))).isInstanceOf(StrictJsonDecoder.Decoded.class);
        StrictJsonDecoder.Failed arrays = failed(decode("[".repeat(33) + "]".repeat(33)));
        assertThat(arrays.code()).isEqualTo(ErrorCode.JSON_DEPTH);
        assertThat(arrays.pointer()).isEqualTo("/0".repeat(32));

        assertThat(decode("{\"a\":".repeat(31) + "[]" + "}".repeat(31))).isInstanceOf(StrictJsonDecoder.Decoded.class);
        StrictJsonDecoder.Failed objects = failed(decode("{\"a\":".repeat(32) + "{}" + "}".repeat(32)));
        assertThat(objects.code()).isEqualTo(ErrorCode.JSON_DEPTH);
        assertThat(objects.pointer()).isEqualTo("/a".repeat(32));
    }

    @Test
    void nodeBoundIsExact() {
        // An array holding 4,095 numbers is 4,096 values.
        String atLimit = "[" + "0,".repeat(Limits.JSON_NODES - 2) + "0]";
        StrictJsonDecoder.Outcome ok = decode(atLimit);
        assertThat(ok).isInstanceOf(StrictJsonDecoder.Decoded.class);
        assertThat(((StrictJsonDecoder.Decoded) ok).nodes()).isEqualTo(Limits.JSON_NODES);
        StrictJsonDecoder.Failed over = failed(decode("[" + "0,".repeat(Limits.JSON_NODES - 1) + "0]"));
        assertThat(over.code()).isEqualTo(ErrorCode.JSON_NODES);
        assertThat(over.pointer()).isEqualTo("/" + (Limits.JSON_NODES - 1));
    }

    @ParameterizedTest
    @CsvSource({
        "efbbbf, JSON_BOM",
        "feff, JSON_BOM",
        "fffe, JSON_BOM",
    })
    void byteOrderMarksAreRefused(String hex, ErrorCode code) {
        assertThat(failed(decodeHex("", hex, "{}")).code()).isEqualTo(code);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "c0af", // overlong '/'
                "c1bf", // overlong
                "e080af", // overlong 3-byte
                "f08080af", // overlong 4-byte
                "eda080", // encoded surrogate U+D800
                "edbfbf", // encoded surrogate U+DFFF
                "f4908080", // above U+10FFFF
                "f5808080", // invalid lead
                "80", // lone continuation
                "e282", // truncated
                "ff",
                "fe"
            })
    void invalidUtf8IsRefusedInsideStringsAndKeys(String hex) {
        StrictJsonDecoder.Failed inString = failed(decodeHex("[\"", hex, "\"]"));
        assertThat(inString.code()).isEqualTo(ErrorCode.JSON_INVALID_UTF8);
        assertThat(inString.byteOffset()).isEqualTo(2);
        assertThat(failed(decodeHex("{\"", hex, "\":1}")).code()).isEqualTo(ErrorCode.JSON_INVALID_UTF8);
    }

    @Test
    void invalidUtf8AtTheVeryEndIsRefused() {
        assertThat(failed(decodeHex("[\"", "e282", "")).code()).isEqualTo(ErrorCode.JSON_INVALID_UTF8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"c2a9", "e282ac", "f09f9880", "efbfbd", "f48fbfbf", "ed9fbf", "ee8080"})
    void wellFormedMultiByteSequencesPass(String hex) {
        assertThat(decodeHex("[\"", hex, "\"]")).isInstanceOf(StrictJsonDecoder.Decoded.class);
    }

    @Test
    void nulBytesAreRefusedRatherThanReadAsUtf16() {
        // Jackson alone reads 00 7B 00 7D as UTF-16 "{}".
        StrictJsonDecoder.Failed utf16 = failed(decodeHex("", "007b007d", ""));
        assertThat(utf16.code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(utf16.byteOffset()).isZero();
        assertThat(failed(decodeHex("[\"", "01", "\"]")).code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(failed(decodeHex("[", "1f", "1]")).code()).isEqualTo(ErrorCode.JSON_SYNTAX);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "[\"\\ud800\"]",
                "[\"\\uDBFF\"]",
                "[\"\\udc00\"]",
                "[\"\\ud800\\u0041\"]",
                "[\"\\ude00\\ud83d\"]",
                "{\"\\ud800\":1}",
                "[\"\\ud800"
            })
    void escapedLoneSurrogatesAreRefused(String json) {
        // Jackson would silently turn them into U+FFFD: the checked value would differ from the bytes.
        assertThat(failed(decode(json)).code()).isEqualTo(ErrorCode.JSON_LONE_SURROGATE);
    }

    @Test
    void escapedPairsAndEscapedBackslashesAreFine() {
        assertThat(decoded("[\"\\ud83d\\ude00\"]").get(0).stringValue()).isEqualTo("\uD83D\uDE00");
        // A literal backslash followed by "ud800" is text, not an escape.
        assertThat(decoded("[\"\\\\ud800\"]").get(0).stringValue()).isEqualTo("\\ud800");
        assertThat(decoded("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]").get(0).stringValue())
                .isEqualTo("\"\\/\b\f\n\r\t");
    }

    @ParameterizedTest
    @ValueSource(strings = {"NaN", "Infinity", "-Infinity", "[NaN]", "{\"a\":Infinity}", "[1,-Infinity]"})
    void nonFiniteNumbersAreRefused(String json) {
        assertThat(failed(decode(json)).code()).isEqualTo(ErrorCode.JSON_NON_FINITE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"+1", "[+Infinity]", "[01]", "[.5]", "[1.]", "[0x10]", "[INF]", "[nan]"})
    void nonStandardNumbersAreSyntaxErrors(String json) {
        assertThat(failed(decode(json)).code()).isIn(ErrorCode.JSON_SYNTAX, ErrorCode.JSON_NON_FINITE);
    }

    @Test
    void duplicateKeysAreRefusedWithTheirPointer() {
        StrictJsonDecoder.Failed top = failed(decode("{\"a\":1,\"a\":2}"));
        assertThat(top.code()).isEqualTo(ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(top.pointer()).isEqualTo("/a");
        StrictJsonDecoder.Failed nested = failed(decode("{\"x\":[{\"b/c\":1,\"b/c\":{}}]}"));
        assertThat(nested.code()).isEqualTo(ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(nested.pointer()).isEqualTo("/x/0/b~1c");
        // Same key in sibling objects is fine; keys differing only in escapes are the same key.
        assertThat(decode("[{\"a\":1},{\"a\":1}]")).isInstanceOf(StrictJsonDecoder.Decoded.class);
        assertThat(failed(decode("{\"a\":1,\"\\u0061\":2}")).code()).isEqualTo(ErrorCode.JSON_DUPLICATE_KEY);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{} {}|JSON_TRAILING_DATA",
                "{}{}|JSON_TRAILING_DATA",
                "1 2|JSON_TRAILING_DATA",
                "{} x|JSON_TRAILING_DATA",
                "[1] ]|JSON_TRAILING_DATA",
                "\"a\" \"b\"|JSON_TRAILING_DATA",
                "{}/*c*/|JSON_TRAILING_DATA",
            })
    void trailingDataIsRefused(String json, ErrorCode code) {
        assertThat(failed(decode(json)).code()).isEqualTo(code);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\n\t\r "})
    void emptyTextIsRefused(String json) {
        assertThat(failed(decode(json)).code()).isEqualTo(ErrorCode.JSON_EMPTY);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{",
                "[1,",
                "{\"a\"}",
                "{\"a\":1,}",
                "[1,]",
                "{'a':1}",
                "{a:1}",
                "[tru]",
                "/*c*/{}",
                "[\"a\\x\"]",
                "[\"\\u12\"]"
            })
    void malformedTextIsASyntaxError(String json) {
        StrictJsonDecoder.Failed failure = failed(decode(json));
        assertThat(failure.code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(failure.message()).doesNotContain(json.length() > 3 ? json : "\u0000");
    }

    @Test
    void overlongNumbersAreRefused() {
        assertThat(decode("[" + "1".repeat(1000) + "]")).isInstanceOf(StrictJsonDecoder.Decoded.class);
        StrictJsonDecoder.Failed failure = failed(decode("{\"n\":[" + "1".repeat(1001) + "]}"));
        assertThat(failure.code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(failure.pointer()).isEqualTo("/n");
        assertThat(failure.message()).contains("length bounds");
    }

    @Test
    void syntaxErrorsPointAtTheirContainer() {
        StrictJsonDecoder.Failed failure = failed(decode("{\"a\":{\"b\":[1,2,}]}}"));
        assertThat(failure.code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(failure.pointer()).isEqualTo("/a/b");
        assertThat(failure.byteOffset()).isPositive();
    }

    @Test
    void messagesNeverQuoteLargeInput() {
        String secret = "s3cr3t-" + "x".repeat(500);
        StrictJsonDecoder.Failed dup = failed(decode("{\"" + secret + "\":1,\"" + secret + "\":2}"));
        assertThat(dup.message()).doesNotContain(secret).hasSizeLessThan(120);
        StrictJsonDecoder.Failed syntax = failed(decode("[" + secret + "]"));
        assertThat(syntax.message()).doesNotContain("s3cr3t");
    }

    @Test
    void callerByteArrayIsNotModified() {
        byte[] bytes = "{\"a\":[1,2]}".getBytes(StandardCharsets.UTF_8);
        byte[] before = bytes.clone();
        StrictJsonDecoder.decode(bytes, 100);
        assertThat(bytes).isEqualTo(before);
    }
}
