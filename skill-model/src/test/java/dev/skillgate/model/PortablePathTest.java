package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PortablePathTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "SKILL.md",
                "scripts/run.mjs",
                "references/a b/c (1).md",
                "assets/$(rm -rf ~);`x`.txt",
                "a/b/c/d/e/f.cjs",
                "café.md",
                "x-",
                "a..b",
                "...",
                ".hidden",
                "日本語/ファイル.md"
            })
    void acceptsPortableRelativePaths(String value) {
        PortablePath path = PortablePath.of(value);
        assertThat(path.value()).isEqualTo(value);
        assertThat(path.toString()).isEqualTo(value);
        Path root = Path.of("/tmp/root");
        assertThat(path.resolveUnder(root).normalize().startsWith(root)).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "''|PATH_EMPTY",
                "/etc/passwd|PATH_ABSOLUTE",
                "C:/x|PATH_ABSOLUTE",
                "c:|PATH_ABSOLUTE",
                "a\\b|PATH_BACKSLASH",
                "\\\\server\\share|PATH_BACKSLASH",
                "../x|PATH_TRAVERSAL",
                "a/../../x|PATH_TRAVERSAL",
                "a/..|PATH_TRAVERSAL",
                "./a|PATH_DOT_SEGMENT",
                "a/./b|PATH_DOT_SEGMENT",
                "a//b|PATH_EMPTY_SEGMENT",
                "a/|PATH_EMPTY_SEGMENT",
                "-rf|PATH_LEADING_DASH",
                "a/--inspect.mjs|PATH_LEADING_DASH"
            })
    void rejectsEachClassWithItsCode(String value, ErrorCode expected) {
        assertRejected(value, expected);
    }

    @Test
    void rejectsControlFormatAndNulCharacters() {
        for (String value : List.of(
                "a\u0000b", "a\nb", "a\rb", "a\tb", "a\u007fb", "a\u0085b", "a\u202Eb", "a\u200Bb", "a\u2028b")) {
            assertRejected(value, ErrorCode.PATH_CONTROL_CHAR);
        }
    }

    @Test
    void rejectsNonNfcAndOverlongPaths() {
        assertRejected("cafe\u0301.md", ErrorCode.PATH_NOT_NFC);
        assertRejected("a".repeat(256), ErrorCode.PATH_TOO_LONG);
        assertThat(PortablePath.isValid("a".repeat(255))).isTrue();
        List<String> segments = new ArrayList<>();
        for (int i = 0; i < 210; i++) {
            segments.add("abcd");
        }
        assertRejected(String.join("/", segments), ErrorCode.PATH_TOO_LONG);
    }

    @Test
    void ordersByUtf8BytesNotUtf16Units() {
        // U+FF5E (3 UTF-8 bytes, EF BD 9E) sorts before U+1F600 (F0 ...) in UTF-8 but after it in UTF-16.
        PortablePath bmp = PortablePath.of("\uFF5E");
        PortablePath astral = PortablePath.of("😀");
        assertThat(bmp.compareTo(astral)).isNegative();
        assertThat(PortablePath.of("a").compareTo(PortablePath.of("a/b"))).isNegative();
        assertThat(PortablePath.of("B").compareTo(PortablePath.of("a"))).isNegative();
    }

    @Test
    void collisionKeyFoldsCase() {
        assertThat(PortablePath.of("README.md").collisionKey())
                .isEqualTo(PortablePath.of("readme.MD").collisionKey());
        assertThat(PortablePath.of("a.mjs").collisionKey())
                .isNotEqualTo(PortablePath.of("b.mjs").collisionKey());
    }

    @Test
    void segmentsAndFileName() {
        PortablePath path = PortablePath.of("scripts/lib/run.mjs");
        assertThat(path.segments()).containsExactly("scripts", "lib", "run.mjs");
        assertThat(path.fileName()).isEqualTo("run.mjs");
        assertThat(path.hasSuffix(".mjs")).isTrue();
        assertThat(PortablePath.of(".mjs").hasSuffix(".mjs")).isFalse();
    }

    @Test
    void theAsciiShortcutAgreesWithTheNormaliser() {
        // Decision 0861: ASCII text is answered without java.text.Normalizer. Every ASCII character
        // alone and every ordered pair of them (composition only ever joins neighbours).
        for (char a = 0; a < 0x80; a++) {
            String one = String.valueOf(a);
            assertThat(PortablePath.isNfc(one)).isEqualTo(Normalizer.isNormalized(one, Normalizer.Form.NFC));
            for (char b = 0; b < 0x80; b++) {
                String two = one + b;
                assertThat(PortablePath.isNfc(two))
                        .as("%04x %04x", (int) a, (int) b)
                        .isTrue();
                assertThat(Normalizer.isNormalized(two, Normalizer.Form.NFC)).isTrue();
            }
        }
        // Anything else still goes to the normaliser: a combining mark after ASCII, NFC and NFD
        // spellings of the same name, a non-ASCII character that is never NFC (U+212B ANGSTROM SIGN).
        assertThat(PortablePath.isNfc("cafe\u0301.md")).isFalse();
        assertThat(PortablePath.isNfc("caf\u00e9.md")).isTrue();
        assertThat(PortablePath.isNfc("A\u030a")).isFalse();
        assertThat(PortablePath.isNfc("\u212b.md")).isFalse();
        assertThat(PortablePath.isNfc("")).isTrue();
        assertRejected("A\u030a.md", ErrorCode.PATH_NOT_NFC);
        assertRejected("\u212b.md", ErrorCode.PATH_NOT_NFC);
    }

    private static void assertRejected(String value, ErrorCode expected) {
        assertThat(PortablePath.isValid(value)).as(value).isFalse();
        assertThatThrownBy(() -> PortablePath.of(value))
                .isInstanceOfSatisfying(
                        InvalidValueException.class,
                        e -> assertThat(e.code()).as(value).isEqualTo(expected));
    }
}
