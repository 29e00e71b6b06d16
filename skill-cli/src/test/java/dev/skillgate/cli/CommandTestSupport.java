package dev.skillgate.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs {@code skillgate} in-process through {@link Main#run}, exactly as the launcher does, and
 * keeps what the last command printed on each stream.
 */
abstract class CommandTestSupport {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs one command line; stdout and stderr then hold only what it printed. */
    int run(String... args) {
        out.reset();
        err.reset();
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** The last command's stdout as one JSON document. */
    JsonNode jsonTree() {
        return JSON.readTree(stdout());
    }

    /** Writes a UTF-8 file, creating its parent directories. */
    static Path write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content, StandardCharsets.UTF_8);
    }
}
