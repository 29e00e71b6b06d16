package dev.skillgate.runner;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/** Shared test helpers: the real node, test roots with hostile names, a strict JSON check. */
public final class TestSupport {
    private TestSupport() {}

    /** The real node binary: found once as the README says (the property, else PATH), then pinned. */
    public static Path node() {
        return TestNodeBinary.require();
    }

    /** The version the real node prints. */
    public static String nodeVersion() {
        try {
            ProcessBuilder pb = new ProcessBuilder(node().toString(), "--version");
            pb.environment().clear();
            Process p = pb.start();
            p.getOutputStream().close();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return v;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A pinned runtime for the real node. */
    public static NodeRuntime runtime() {
        return NodeRuntime.pinned(node(), nodeVersion());
    }

    /** A fresh directory whose path has spaces and shell metacharacters, tagged with {@code marker}. */
    public static Path hostileRoot(Path base, String marker) throws IOException {
        return Files.createDirectories(
                base.resolve("sg $(echo pwned) 'q' \"d\" ;&| " + marker + " " + UUID.randomUUID()));
    }

    /** Deletes a test tree, making read-only staging directories writable first; never follows links. */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(
                    Path dir, java.nio.file.attribute.BasicFileAttributes attrs) throws IOException {
                Files.setPosixFilePermissions(
                        dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                    throws IOException {
                Files.delete(file);
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.delete(dir);
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }

    /** A unique marker for survivor scans. */
    public static String newMarker() {
        return "sgmark-" + UUID.randomUUID().toString().substring(0, 12);
    }

    /** A manifest for a one-file bundle. */
    public static ExecutionManifest manifest(PortablePath entry, List<PortablePath> files, int timeoutMs, int maxOut) {
        return new ExecutionManifest(
                1, entry, files, "{\"type\":\"object\"}", "{}", new Timeout(timeoutMs), new OutputLimit(maxOut));
    }

    /** A request for a bundle. */
    public static NodeRunRequest request(
            Map<PortablePath, byte[]> files,
            PortablePath entry,
            String invocationJson,
            Path workspace,
            OutputCheck check,
            int timeoutMs,
            int maxOut) {
        return new NodeRunRequest(
                RunId.random(),
                manifest(entry, new ArrayList<>(files.keySet()), timeoutMs, maxOut),
                files,
                Revision.compute(files),
                invocationJson.getBytes(StandardCharsets.UTF_8),
                workspace,
                check);
    }

    /**
     * A minimal strict check: exactly one JSON value (RFC 8259 grammar, depth ≤ 32), optional
     * surrounding whitespace; returns the trimmed text. Records every text it accepted.
     */
    public static final class StrictJsonCheck implements OutputCheck {
        public final List<String> accepted = new CopyOnWriteArrayList<>();
        public final List<byte[]> seen = new CopyOnWriteArrayList<>();

        @Override
        public Result check(byte[] stdout) {
            seen.add(stdout.clone());
            String text = new String(stdout, StandardCharsets.UTF_8);
            try {
                Parser p = new Parser(text);
                p.ws();
                p.value(0);
                p.ws();
                if (p.i != text.length()) {
                    throw new IllegalArgumentException("trailing data");
                }
            } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
                return OutputCheck.invalid(
                        List.of(Diagnostic.error(ErrorCode.OUTPUT_NOT_JSON, "stdout", "not exactly one JSON value")));
            }
            String json = text.strip();
            accepted.add(json);
            return OutputCheck.valid(json);
        }
    }

    private static final class Parser {
        final String s;
        int i;

        Parser(String s) {
            this.s = s;
        }

        void ws() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        void value(int depth) {
            if (depth > 32) {
                throw new IllegalArgumentException("deep");
            }
            ws();
            char c = s.charAt(i);
            switch (c) {
                case '{' -> {
                    i++;
                    ws();
                    if (s.charAt(i) == '}') {
                        i++;
                        return;
                    }
                    while (true) {
                        ws();
                        string();
                        ws();
                        expect(':');
                        value(depth + 1);
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect('}');
                            return;
                        }
                    }
                }
                case '[' -> {
                    i++;
                    ws();
                    if (s.charAt(i) == ']') {
                        i++;
                        return;
                    }
                    while (true) {
                        value(depth + 1);
                        ws();
                        if (s.charAt(i) == ',') {
                            i++;
                        } else {
                            expect(']');
                            return;
                        }
                    }
                }
                case '"' -> string();
                case 't' -> literal("true");
                case 'f' -> literal("false");
                case 'n' -> literal("null");
                default -> number();
            }
        }

        void string() {
            expect('"');
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return;
                }
                if (c < 0x20) {
                    throw new IllegalArgumentException("control");
                }
                if (c == '\\') {
                    char e = s.charAt(i++);
                    if (e == 'u') {
                        for (int k = 0; k < 4; k++) {
                            if (Character.digit(s.charAt(i++), 16) < 0) {
                                throw new IllegalArgumentException("escape");
                            }
                        }
                    } else if ("\"\\/bfnrt".indexOf(e) < 0) {
                        throw new IllegalArgumentException("escape");
                    }
                }
            }
        }

        void number() {
            int start = i;
            if (s.charAt(i) == '-') {
                i++;
            }
            if (s.charAt(i) == '0') {
                i++;
            } else {
                digits();
            }
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                digits();
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (s.charAt(i) == '+' || s.charAt(i) == '-') {
                    i++;
                }
                digits();
            }
            if (i == start) {
                throw new IllegalArgumentException("value");
            }
        }

        void digits() {
            int start = i;
            while (i < s.length() && Character.isDigit(s.charAt(i)) && s.charAt(i) < 128) {
                i++;
            }
            if (i == start) {
                throw new IllegalArgumentException("digits");
            }
        }

        void literal(String word) {
            if (!s.startsWith(word, i)) {
                throw new IllegalArgumentException("literal");
            }
            i += word.length();
        }

        void expect(char c) {
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected " + c);
            }
            i++;
        }
    }
}
