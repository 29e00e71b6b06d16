package dev.skillgate.inspect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes skill bundles for tests: real directories and files on disk. */
final class Bundles {
    private Bundles() {}

    /** {@code ---⏎<frontmatter>⏎---⏎# Body⏎}, the layout of the conformance cases. */
    static String skillMd(String frontmatter) {
        return "---\n" + frontmatter + "\n---\n# Body\n";
    }

    /** Creates {@code root/dir/SKILL.md} holding {@code content}; returns the skill directory. */
    static Path skill(Path root, String dir, String content) {
        return skill(root, dir, content.getBytes(StandardCharsets.UTF_8));
    }

    static Path skill(Path root, String dir, byte[] content) {
        try {
            Path d = Files.createDirectories(root.resolve(dir));
            Files.write(d.resolve("SKILL.md"), content);
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A valid minimal skill named {@code name} in {@code root}. */
    static Path valid(Path root, String name) {
        return skill(root, name, skillMd("name: " + name + "\ndescription: The " + name + " skill"));
    }

    static Path write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the JVM maps file names as UTF-8 (needed for non-ASCII directory names). */
    static boolean utf8FileNames() {
        return "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding", ""));
    }
}
