package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RevisionTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** An independent re-implementation of the framing in docs/revision.md. */
    private static Revision reference(Map<String, String> files) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(utf8("skillgate-revision-v1"));
        out.write(0);
        files.keySet().stream()
                .sorted((a, b) -> java.util.Arrays.compareUnsigned(utf8(a), utf8(b)))
                .forEach(path -> {
                    byte[] name = utf8(path);
                    byte[] content = utf8(files.get(path));
                    out.writeBytes(ByteBuffer.allocate(4).putInt(name.length).array());
                    out.writeBytes(name);
                    out.writeBytes(
                            ByteBuffer.allocate(8).putLong(content.length).array());
                    out.writeBytes(content);
                });
        return new Revision(Sha256Digest.hash(out.toByteArray()));
    }

    private static Revision compute(Map<String, String> files) {
        Map<PortablePath, byte[]> captured = new HashMap<>();
        files.forEach((k, v) -> captured.put(PortablePath.of(k), utf8(v)));
        return Revision.compute(captured);
    }

    @Test
    void matchesTheDocumentedFramingAndWorkedVectors() {
        Map<String, String> bundle = new LinkedHashMap<>();
        bundle.put("SKILL.md", "---\nname: hello\ndescription: Says hello.\n---\n# Hello\n");
        bundle.put("execution.json", "{}");
        bundle.put("scripts/run.mjs", "console.log('{}')\n");
        assertThat(compute(bundle)).isEqualTo(reference(bundle));
        // Worked vectors, also printed in docs/revision.md.
        assertThat(Revision.compute(Map.of()).toString())
                .isEqualTo("sha256:"
                        + Sha256Digest.hash(utf8("skillgate-revision-v1\0")).hex());
    }

    @Test
    void reproducesTheWorkedVectorsOfDocsRevisionMd() {
        assertThat(compute(Map.of()).toString())
                .isEqualTo("sha256:9b666a3606826215f4609f8c6d68a69688717eccd440a9fc5e5ab647f5b362a0");
        assertThat(compute(Map.of("SKILL.md", "")).toString())
                .isEqualTo("sha256:8e6d0d9f692aefc4a895565b801fb6157f26c9934f61af11dacd5fb879849a7d");
        assertThat(compute(Map.of(
                                "SKILL.md", "---\nname: hello\ndescription: Says hello.\n---\n# Hello\n",
                                "execution.json", "{\"schemaVersion\":1}\n",
                                "scripts/run.mjs", "console.log(JSON.stringify({ok:true}));\n"))
                        .toString())
                .isEqualTo("sha256:871ea8a0c260c71b784e1601705e73cdb243a8e2a037bc11f643eb344bec36a3");
        assertThat(compute(Map.of("\uFF5E.md", "a", "\uD83D\uDE00.md", "b", "B.md", "c", "a.md", "d"))
                        .toString())
                .isEqualTo("sha256:07710d61a507066103d0b586d8da95376943743e83ffcd5a0702a5506839fa2e");
    }

    @Test
    void anyChangeOfBytesNamesOrMembershipChangesTheRevision() {
        Map<String, String> base = Map.of("SKILL.md", "abc", "a.mjs", "x");
        Revision r = compute(base);
        assertThat(compute(Map.of("SKILL.md", "abd", "a.mjs", "x"))).isNotEqualTo(r);
        assertThat(compute(Map.of("SKILL.md", "abc", "b.mjs", "x"))).isNotEqualTo(r);
        assertThat(compute(Map.of("SKILL.md", "abc", "a.mjs", "x", "c.mjs", "")))
                .isNotEqualTo(r);
        // Moving a byte from one file's content to the next file's name must not collide.
        assertThat(compute(Map.of("a", "bc"))).isNotEqualTo(compute(Map.of("a", "b", "c", "")));
        assertThat(compute(Map.of("ab", "c"))).isNotEqualTo(compute(Map.of("a", "bc")));
        // Order of insertion does not matter.
        Map<String, String> reversed = new LinkedHashMap<>();
        reversed.put("a.mjs", "x");
        reversed.put("SKILL.md", "abc");
        assertThat(compute(reversed)).isEqualTo(r);
    }

    /** The builder, fed in path order, frames exactly like the independent reference. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void builderFedInPathOrderEqualsTheReference(long seed) {
        Random random = new Random(seed);
        String[] alphabet = {"a", "B", "z", "_", "-", ".x", "\u00e9", "\uFF5E", "\uD83D\uDE00", "0"};
        Map<String, String> files = new HashMap<>();
        int count = random.nextInt(70);
        for (int i = 0; i < count; i++) {
            StringBuilder path = new StringBuilder();
            int segments = 1 + random.nextInt(3);
            for (int s = 0; s < segments; s++) {
                if (s > 0) {
                    path.append('/');
                }
                int length = 1 + random.nextInt(4);
                for (int c = 0; c < length; c++) {
                    path.append(alphabet[random.nextInt(alphabet.length)]);
                }
            }
            String p = path.toString();
            try {
                PortablePath.of(p);
            } catch (InvalidValueException e) {
                continue; // not a portable path (a leading dash, a dot segment...)
            }
            char[] content = new char[random.nextInt(3) == 0 ? 0 : random.nextInt(5000)];
            for (int c = 0; c < content.length; c++) {
                content[c] = (char) ('a' + random.nextInt(26));
            }
            files.put(p, new String(content));
        }
        TreeMap<PortablePath, byte[]> sorted = new TreeMap<>();
        files.forEach((k, v) -> sorted.put(PortablePath.of(k), utf8(v)));
        Revision.Builder builder = Revision.builder();
        sorted.forEach(builder::append);
        Revision built = builder.build();
        assertThat(built).isEqualTo(reference(files));
        assertThat(built).isEqualTo(compute(files));
    }

    @Test
    void builderRefusesOutOfOrderAndRepeatedPathsAndUseAfterBuild() {
        Revision.Builder builder = Revision.builder();
        builder.append(PortablePath.of("B.md"), utf8("c"));
        for (String bad : List.of("B.md", "A.md", "0")) {
            assertThatThrownBy(() -> builder.append(PortablePath.of(bad), utf8("x")))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        // A refused append left the builder unchanged.
        builder.append(PortablePath.of("a.md"), utf8("d"));
        builder.append(PortablePath.of("\uFF5E.md"), utf8("a"));
        builder.append(PortablePath.of("\uD83D\uDE00.md"), utf8("b"));
        assertThat(builder.build().toString())
                .isEqualTo("sha256:07710d61a507066103d0b586d8da95376943743e83ffcd5a0702a5506839fa2e");
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> builder.append(PortablePath.of("zz"), utf8("")))
                .isInstanceOf(IllegalStateException.class);
        assertThat(Revision.builder().build().toString())
                .isEqualTo("sha256:9b666a3606826215f4609f8c6d68a69688717eccd440a9fc5e5ab647f5b362a0");
    }
}
