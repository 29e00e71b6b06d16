package dev.skillgate.benchmarks.corpus;

import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Synthetic bundles for the benchmarks: small prompt skills (the inspection target of SPEC §17) and
 * the maximal executable bundle (64 declared files, 4 MiB in total with {@code SKILL.md} and
 * {@code execution.json}: the capture target). Deterministic for a given seed.
 *
 * <p>Not guaranteed: that the shapes are typical of published skills; they are what the SPEC's
 * targets name.
 */
public final class Bundles {
    private Bundles() {}

    /**
     * {@code SKILL.md} of a small skill named {@code name}: all six standard fields, about 450
     * bytes (the same shape as skill-inspect's first inspection harness).
     */
    public static String smallSkillMd(String name, int i) {
        return "---\nname: " + name + "\ndescription: Synthetic skill number " + i
                + ". Use when benchmarking Skillgate inspection of many small bundles.\nlicense: Apache-2.0\n"
                + "compatibility: Requires Node.js 18+\nallowed-tools: Read Bash(git:*)\nmetadata:\n"
                + "  author: bench\n  version: \"1." + (i % 10) + "\"\n---\n# " + name
                + "\n\nStep one. Step two. See references/REFERENCE.md.\n";
    }

    /**
     * Writes {@code count} small skills under {@code root} ({@code skill-00000} …), each with
     * {@code SKILL.md}, {@code references/REFERENCE.md} and {@code scripts/run.mjs}; returns their
     * directories in order.
     */
    public static List<Path> writeSmall(Path root, int count) throws IOException {
        List<Path> dirs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = String.format(Locale.ROOT, "skill-%05d", i);
            Path dir = Files.createDirectories(root.resolve(name));
            Files.writeString(dir.resolve("SKILL.md"), smallSkillMd(name, i), StandardCharsets.UTF_8);
            Files.createDirectories(dir.resolve("references"));
            Files.writeString(dir.resolve("references/REFERENCE.md"), "Details for " + name + "\n");
            Files.createDirectories(dir.resolve("scripts"));
            Files.writeString(dir.resolve("scripts/run.mjs"), "console.log(JSON.stringify({ok:true}));\n");
            dirs.add(dir);
        }
        return dirs;
    }

    /** A manifest naming {@code entrypoint} and {@code files}, with open object schemas. */
    public static String manifest(String entrypoint, List<String> files) {
        StringBuilder list = new StringBuilder();
        for (String f : files) {
            list.append(list.length() == 0 ? "" : ",").append('"').append(f).append('"');
        }
        return "{\"schemaVersion\":1,\"entrypoint\":\"" + entrypoint + "\",\"files\":[" + list + "],"
                + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}\n";
    }

    /**
     * The maximal bundle's files, in memory: {@code SKILL.md}, {@code execution.json}, the entrypoint
     * {@code run.mjs} and 63 parts of random bytes, {@value Limits#CAPTURE_BYTES} bytes in total.
     * Iteration order: {@code SKILL.md}, {@code execution.json}, then the declared files.
     */
    public static Map<PortablePath, byte[]> maximal(String name) {
        Map<PortablePath, byte[]> files = new LinkedHashMap<>();
        byte[] skill = ("---\nname: " + name + "\ndescription: The " + name + " skill, as large as capture allows.\n"
                        + "---\n# Maximal\n")
                .getBytes(StandardCharsets.UTF_8);
        List<String> declared = new ArrayList<>();
        declared.add("run.mjs");
        for (int i = 1; i < Limits.DECLARED_FILES; i++) {
            declared.add(String.format(Locale.ROOT, "lib/part-%02d.bin", i));
        }
        byte[] manifest = manifest("run.mjs", declared).getBytes(StandardCharsets.UTF_8);
        byte[] entry = "console.log('{}');\n".getBytes(StandardCharsets.UTF_8);
        files.put(PortablePath.of("SKILL.md"), skill);
        files.put(PortablePath.of("execution.json"), manifest);
        files.put(PortablePath.of("run.mjs"), entry);
        long left = (long) Limits.CAPTURE_BYTES - skill.length - manifest.length - entry.length;
        int parts = declared.size() - 1;
        Random random = new Random(42);
        for (int i = 1; i <= parts; i++) {
            byte[] content = new byte[(int) (left / parts + (i <= left % parts ? 1 : 0))];
            random.nextBytes(content);
            files.put(PortablePath.of(declared.get(i)), content);
        }
        return files;
    }

    /** Writes {@code files} under {@code dir} (created) and returns {@code dir}. */
    public static Path write(Path dir, Map<PortablePath, byte[]> files) throws IOException {
        for (Map.Entry<PortablePath, byte[]> e : files.entrySet()) {
            Path target = dir.resolve(e.getKey().toString());
            Files.createDirectories(target.getParent());
            Files.write(target, e.getValue());
        }
        return dir;
    }

    /** Deletes a tree written by a benchmark; links are deleted, never followed. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
