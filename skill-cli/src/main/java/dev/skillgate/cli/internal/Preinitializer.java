package dev.skillgate.cli.internal;

import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Warms, on one daemon thread started when {@code run} begins, the two parsers a cold {@code run}
 * meets later on its critical path (decision 0882): SnakeYAML Engine and the frontmatter rules, which
 * the gate's catalog needs for the first {@code SKILL.md} (≈ 15 ms of the main thread), and Jackson's
 * strict decoder with the networknt JSON Schema dialect, which the execution needs for the first
 * manifest (≈ 27 ms of the execution thread: the dialect's 58 keyword factories linked, the factory
 * built). Their class initialisation then runs beside the gate's opening instead of in line.
 *
 * <p>What it guarantees: it calls only public entry points that read and write nothing outside
 * memory — {@link SkillValidator#validateBytes} of a constant {@code SKILL.md} and {@link
 * SchemaGate#compile} of a constant schema with one check of a constant input — keeps nothing, starts
 * no process, and drops whatever they throw (the real path meets the same code with the real input
 * and reports it). No output, outcome or order of the run depends on it: a class initialised here is
 * initialised the same way when the run reaches it, and a caller that arrives while it is running
 * waits for it as for any class initialisation. What it does not: save time when both cores are busy
 * anyway; it only moves work earlier.
 */
final class Preinitializer {
    /** A valid {@code SKILL.md}, the shape the catalog reads first. */
    private static final byte[] SKILL_MD = ("---\n"
                    + "name: preinit\n"
                    + "description: Warms the frontmatter parser before the first skill is read.\n"
                    + "---\n"
                    + "Body.\n")
            .getBytes(StandardCharsets.UTF_8);

    /** An input schema with the keywords a typical skill declares (the hello-world sample's). */
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
            + "\"minLength\":1,\"maxLength\":100}},\"required\":[\"name\"],\"additionalProperties\":false}";

    private static final byte[] INPUT = "{\"name\":\"Ada\"}".getBytes(StandardCharsets.UTF_8);

    private Preinitializer() {}

    /** Starts the warming thread; it ends by itself and never holds the JVM open. */
    static Thread start() {
        Thread t = new Thread(
                new Runnable() {
                    @Override
                    public void run() {
                        warmQuietly();
                    }
                },
                "skillgate-run-preinit");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** {@link #warm()}, with anything it throws dropped. */
    static void warmQuietly() {
        try {
            warm();
        } catch (RuntimeException | LinkageError e) {
            // The run's own path meets the same code and reports what is wrong there.
        }
    }

    /**
     * Validates the constant {@code SKILL.md}, then compiles the constant schema and checks the
     * constant input against it; true when all three came out as they must (for tests: the warming
     * went through the paths it means to).
     */
    static boolean warm() {
        boolean portable = SkillValidator.validateBytes(SKILL_MD, "preinit", ValidationProfile.STRICT)
                .portable();
        Optional<CompiledSchema> compiled =
                SchemaGate.compile(SchemaRole.INPUT, SCHEMA).compiled();
        return portable
                && compiled.isPresent()
                && compiled.get().checkInvocation(INPUT).isValid();
    }
}
