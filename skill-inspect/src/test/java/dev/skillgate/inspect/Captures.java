package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Writes bundles with manifests and captures them, for the capture tests. */
final class Captures {
    private Captures() {}

    /** Captures {@code dir} as the library does. */
    static CaptureOutcome capture(Path dir) {
        return SkillArtifact.capture(dir);
    }

    /** Captures {@code dir} and expects success. */
    static SkillArtifact captured(Path dir) {
        CaptureOutcome outcome = capture(dir);
        assertThat(outcome.problem()).as("capture problem").isEmpty();
        return outcome.artifact().orElseThrow();
    }

    /** The failure code of a capture that must fail. */
    static ErrorCode failure(Path dir) {
        CaptureOutcome outcome = capture(dir);
        assertThat(outcome).isInstanceOf(CaptureOutcome.Failed.class);
        return ((CaptureOutcome.Failed) outcome).code();
    }

    /** A valid manifest naming {@code entrypoint} and {@code files}. */
    static String manifest(String entrypoint, String... files) {
        StringBuilder list = new StringBuilder();
        for (String f : files) {
            list.append(list.length() == 0 ? "" : ",").append('"').append(f).append('"');
        }
        return "{\"schemaVersion\":1,\"entrypoint\":\"" + entrypoint + "\",\"files\":[" + list + "],"
                + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}\n";
    }

    /** {@code SKILL.md} for a skill named {@code name}, with {@code body}. */
    static String skillMd(String name, String body) {
        return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body;
    }

    /**
     * An executable skill {@code root/name} with {@code run.mjs} and the extra files given as
     * path/content pairs; returns its directory.
     */
    static Path executable(Path root, String name, String... pathsAndContents) {
        Path dir = root.resolve(name);
        List<String> files = new ArrayList<>(List.of("run.mjs"));
        write(dir.resolve("SKILL.md"), skillMd(name, "# " + name + "\n"));
        write(dir.resolve("run.mjs"), "console.log('{}');\n");
        for (int i = 0; i < pathsAndContents.length; i += 2) {
            files.add(pathsAndContents[i]);
            write(dir.resolve(pathsAndContents[i]), pathsAndContents[i + 1]);
        }
        write(dir.resolve("execution.json"), manifest("run.mjs", files.toArray(String[]::new)));
        return dir;
    }

    static Path write(Path file, String content) {
        return write(file, content.getBytes(StandardCharsets.UTF_8));
    }

    static Path write(Path file, byte[] content) {
        try {
            Files.createDirectories(file.getParent());
            return Files.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Optional<ErrorCode> firstExecutionProblem(SkillArtifact artifact) {
        return artifact.executionProblems().stream().map(Diagnostic::code).findFirst();
    }
}
