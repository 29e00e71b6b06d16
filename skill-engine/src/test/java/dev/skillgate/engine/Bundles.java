package dev.skillgate.engine;

import dev.skillgate.fixtures.NodeFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes small skill bundles for tests: SKILL.md, execution.json and one script under scripts/. */
final class Bundles {
    private Bundles() {}

    static final String OPEN_OBJECT = "{\"type\":\"object\",\"properties\":{}}";

    /** A skill named {@code name} running {@code fixture}, any object in, any object out. */
    static Path fixtureSkill(Path root, String name, NodeFixture fixture, int timeoutMs) throws IOException {
        return skill(root, name, fixture.fileName(), fixture.bytes(), OPEN_OBJECT, OPEN_OBJECT, timeoutMs, 65536);
    }

    /** A skill with the given script and schemas. */
    static Path skill(
            Path root,
            String name,
            String scriptName,
            byte[] script,
            String inputSchema,
            String outputSchema,
            int timeoutMs,
            int maxOutputBytes)
            throws IOException {
        Path dir = Files.createDirectories(root.resolve(name));
        Support.write(
                dir.resolve("SKILL.md"),
                "---\nname: " + name + "\ndescription: A test skill called " + name + ".\n---\n# " + name + "\n");
        Support.write(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/" + scriptName + "\",\"files\":[\"scripts/" + scriptName
                        + "\"],\"inputSchema\":" + inputSchema + ",\"outputSchema\":" + outputSchema
                        + ",\"timeoutMs\":" + timeoutMs + ",\"maxOutputBytes\":" + maxOutputBytes + "}");
        Files.createDirectories(dir.resolve("scripts"));
        Files.write(dir.resolve("scripts").resolve(scriptName), script);
        return dir;
    }
}
