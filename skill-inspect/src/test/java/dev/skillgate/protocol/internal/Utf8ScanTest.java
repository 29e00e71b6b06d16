package dev.skillgate.protocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pre-scan skips 8 plain bytes at a time; these tests put every kind of interesting byte at
 * every offset across word boundaries, and compare the scan with a byte-at-a-time reference on
 * seeded random inputs.
 */
class Utf8ScanTest {

    @ParameterizedTest
    @ValueSource(ints = {0x00, 0x01, 0x08, 0x0B, 0x0C, 0x1F})
    void controlBytesAreFoundAtEveryOffset(int control) {
        for (int length = 1; length <= 24; length++) {
            for (int at = 0; at < length; at++) {
                byte[] bytes = filled(length);
                bytes[at] = (byte) control;
                Utf8Scan.Problem problem = Utf8Scan.firstProblem(bytes);
                assertThat(problem).as("length %d at %d", length, at).isNotNull();
                assertThat(problem.code()).isEqualTo(ErrorCode.JSON_SYNTAX);
                assertThat(problem.offset()).isEqualTo(at);
            }
        }
    }

    @Test
    void tabLineFeedAndCarriageReturnAreAllowedAtEveryOffset() {
        for (int at = 0; at < 24; at++) {
            for (byte allowed : new byte[] {'\t', '\n', '\r', 0x20, 0x7F, '"'}) {
                byte[] bytes = filled(24);
                bytes[at] = allowed;
                assertThat(Utf8Scan.firstProblem(bytes)).isNull();
            }
        }
    }

    @Test
    void invalidUtf8IsFoundAtEveryOffset() {
        for (int at = 0; at < 24; at++) {
            for (int bad : new int[] {0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF}) {
                byte[] bytes = filled(24);
                bytes[at] = (byte) bad;
                Utf8Scan.Problem problem = Utf8Scan.firstProblem(bytes);
                assertThat(problem).isNotNull();
                assertThat(problem.code()).isEqualTo(ErrorCode.JSON_INVALID_UTF8);
                assertThat(problem.offset()).isEqualTo(at);
            }
        }
    }

    @Test
    void loneSurrogateEscapesAreFoundAtEveryOffset() {
        for (int at = 0; at + 6 <= 30; at++) {
            byte[] bytes = filled(30);
            System.arraycopy("\\udc00".getBytes(StandardCharsets.US_ASCII), 0, bytes, at, 6);
            Utf8Scan.Problem problem = Utf8Scan.firstProblem(bytes);
            assertThat(problem).isNotNull();
            assertThat(problem.code()).isEqualTo(ErrorCode.JSON_LONE_SURROGATE);
            assertThat(problem.offset()).isEqualTo(at);
        }
        for (int at = 0; at + 12 <= 30; at++) {
            byte[] bytes = filled(30);
            System.arraycopy("\\ud83d\\ude00".getBytes(StandardCharsets.US_ASCII), 0, bytes, at, 12);
            assertThat(Utf8Scan.firstProblem(bytes)).isNull();
        }
    }

    @Test
    void agreesWithAByteAtATimeReferenceOnSeededRandomInput() {
        Random random = new Random(4242L);
        byte[] alphabet = "ab\"\\u0123456789dDcCfF{}[]:, \t\n".getBytes(StandardCharsets.US_ASCII);
        int problems = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                int pick = random.nextInt(100);
                if (pick < 85) {
                    bytes[i] = alphabet[random.nextInt(alphabet.length)];
                } else if (pick < 95) {
                    bytes[i] = (byte) (0x80 + random.nextInt(0x80));
                } else {
                    bytes[i] = (byte) random.nextInt(0x20);
                }
            }
            Utf8Scan.Problem problem = Utf8Scan.firstProblem(bytes);
            Utf8Scan.Problem expected = reference(bytes);
            assertThat(problem).as("round %d", round).isEqualTo(expected);
            if (problem != null) {
                problems++;
            }
        }
        assertThat(problems).isBetween(1_000, 19_000);
    }

    /** Byte at a time: the same rules without the 8-byte fast path, UTF-8 by the JDK's strict decoder. */
    private static Utf8Scan.Problem reference(byte[] b) {
        int i = 0;
        while (i < b.length) {
            int c = b[i] & 0xFF;
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                return new Utf8Scan.Problem(
                        ErrorCode.JSON_SYNTAX,
                        i,
                        String.format("raw control byte 0x%02X at byte %d; JSON requires it escaped", c, i));
            }
            if (c == '\\') {
                if (i + 1 < b.length && b[i + 1] == 'u') {
                    int unit = hex(b, i + 2);
                    if (unit >= 0xDC00 && unit <= 0xDFFF) {
                        return lone(i);
                    }
                    if (unit >= 0xD800 && unit <= 0xDBFF) {
                        int low = i + 7 < b.length && b[i + 6] == '\\' && b[i + 7] == 'u' ? hex(b, i + 8) : -1;
                        if (low >= 0xDC00 && low <= 0xDFFF && i + 11 < b.length) {
                            i += 12;
                            continue;
                        }
                        return lone(i);
                    }
                    i += unit >= 0 ? 6 : 1;
                } else {
                    i += i + 1 < b.length && b[i + 1] >= 0 ? 2 : 1;
                }
                continue;
            }
            if (c >= 0x80) {
                int length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
                if (!strictUtf8(b, i, length)) {
                    return new Utf8Scan.Problem(ErrorCode.JSON_INVALID_UTF8, i, "invalid UTF-8 sequence at byte " + i);
                }
                i += length;
                continue;
            }
            i++;
        }
        return null;
    }

    private static Utf8Scan.Problem lone(int i) {
        return new Utf8Scan.Problem(
                ErrorCode.JSON_LONE_SURROGATE, i, "a string escapes an unpaired UTF-16 surrogate at byte " + i);
    }

    private static boolean strictUtf8(byte[] b, int from, int length) {
        if (from + length > b.length) {
            return false;
        }
        try {
            String decoded = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, from, length))
                    .toString();
            return decoded.codePointCount(0, decoded.length()) == 1;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static int hex(byte[] b, int from) {
        if (from + 4 > b.length) {
            return -1;
        }
        int value = 0;
        for (int k = from; k < from + 4; k++) {
            int d = Character.digit(b[k], 16);
            if (d < 0 || b[k] < 0) {
                return -1;
            }
            value = value * 16 + d;
        }
        return value;
    }

    private static byte[] filled(int length) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte) 'a');
        return bytes;
    }
}
