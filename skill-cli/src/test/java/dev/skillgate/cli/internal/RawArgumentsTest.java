package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: an invalid UTF-8 byte in an {@code --input} argument silently became U+FFFD while the
 * same bytes through {@code @FILE} were refused. Now the argument is judged on the bytes the kernel
 * passed ({@code /proc/self/cmdline}), exactly as the file (decision 0637).
 */
class RawArgumentsTest {
    @TempDir
    Path tmp;

    private static final byte[] INVALID = {'{', '"', 'n', '"', ':', '"', (byte) 0xFF, '"', '}'};

    private static byte[] cmdline(byte[]... entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] e : entries) {
            out.writeBytes(e);
            out.write(0);
        }
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theTailOfCmdlineGivesTheRawBytesWhenItMatches() {
        String decoded = new String(INVALID, StandardCharsets.UTF_8);
        byte[] cmd = cmdline(utf8("java"), utf8("-m"), utf8("x/y"), utf8("--input"), INVALID);
        RawArguments raw = RawArguments.matching(List.of("--input", decoded), cmd, StandardCharsets.UTF_8);
        assertThat(raw.known()).isTrue();
        assertThat(raw.bytesOf(decoded)).isEqualTo(INVALID);
        assertThat(raw.bytesOf("other")).isEqualTo(utf8("other"));
    }

    @Test
    void aMismatchClaimsNothing() {
        byte[] cmd = cmdline(utf8("java"), utf8("--input"), utf8("{}"));
        RawArguments raw = RawArguments.matching(List.of("--input", "{\"a\":1}"), cmd, StandardCharsets.UTF_8);
        assertThat(raw.known()).isFalse();
        assertThat(RawArguments.matching(List.of("a", "b", "c", "d"), cmd, StandardCharsets.UTF_8)
                        .known())
                .isFalse();
    }

    @Test
    void ambiguousArgumentsFallBackToTheirEncoding() {
        byte[] other = {(byte) 0xFE};
        String a = new String(new byte[] {(byte) 0xFF}, StandardCharsets.UTF_8);
        byte[] cmd = cmdline(new byte[] {(byte) 0xFF}, other);
        RawArguments raw = RawArguments.matching(List.of(a, a), cmd, StandardCharsets.UTF_8);
        assertThat(raw.known()).isTrue();
        assertThat(raw.bytesOf(a)).isEqualTo(utf8(a));
    }

    @Test
    void checkInputJudgesTheArgumentBytesLikeTheFile() throws IOException {
        Path skill = Files.createDirectories(tmp.resolve("one"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: one\ndescription: d\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(skill.resolve("scripts/s.mjs"), "process.stdout.write('{}')\n");
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/s.mjs\",\"files\":[\"scripts/s.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}},\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}");
        Path file = Files.write(tmp.resolve("input.json"), INVALID);
        String decoded = new String(INVALID, StandardCharsets.UTF_8);

        String[] viaFile = {"check-input", skill.toString(), "--input", "@" + file, "--json"};
        Result fromFile = run(viaFile, RawArguments.none());
        String[] viaArg = {"check-input", skill.toString(), "--input", decoded, "--json"};
        byte[] cmd = cmdline(
                utf8("java"), utf8("check-input"), utf8(skill.toString()), utf8("--input"), INVALID, utf8("--json"));
        Result fromArg = run(viaArg, RawArguments.matching(List.of(viaArg), cmd, StandardCharsets.UTF_8));
        // Before: the argument's U+FFFD was valid UTF-8 and the invocation passed.
        Result before = run(viaArg, RawArguments.none());

        assertThat(fromFile.code()).isEqualTo(1);
        assertThat(fromFile.out()).contains("JSON_INVALID_UTF8");
        assertThat(fromArg.code()).isEqualTo(1);
        assertThat(fromArg.out()).contains("JSON_INVALID_UTF8");
        assertThat(before.code()).isZero();
    }

    private record Result(int code, String out) {}

    private static Result run(String[] args, RawArguments raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new Cli(
                        new ByteArrayInputStream(new byte[0]),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        raw)
                .run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8));
    }
}
