package dev.skillgate.engine;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The set-up the hostile-host tests share (HostileHostTest, HostileLateAnswerTest,
 * CatalogConfusableNamesTest): a temporary base holding a hostile root (spaces and shell
 * metacharacters, tagged with a fresh marker) with a workspace {@code ws} and skill directories
 * copied from the repository's examples; a data directory per admin; and, at the end, no process
 * left that carries the marker (the base is removed).
 *
 * @param marker the tag every process started from this fixture carries
 * @param base the temporary base, removed by {@link #close}
 * @param root the hostile root below it
 * @param workspace {@code root/ws}
 */
record HostileFixture(String marker, Path base, Path root, Path workspace) {
    /** The agent these tests run as: example-agent 1.5.0, text and structured data, agent-native tools, read-only. */
    static final AgentContext EXAMPLE_AGENT = AgentContext.of(
            "example-agent",
            SemVer.parse("1.5.0"),
            Set.of(InputType.TEXT, InputType.STRUCTURED_DATA),
            Set.of(ToolClass.AGENT_NATIVE),
            PermissionMode.READ_ONLY);

    /** A new fixture in a temporary directory named {@code prefix}…. */
    static HostileFixture create(String prefix) throws IOException {
        String marker = Support.newMarker();
        Path base = Files.createTempDirectory(prefix);
        Path root = Support.hostileRoot(base, marker);
        return new HostileFixture(marker, base, root, Files.createDirectories(root.resolve("ws")));
    }

    /** A skill root {@code root/name} holding copies of the named example skills. */
    Path skillRoot(String name, String... examples) throws IOException {
        Path dir = Files.createDirectories(root.resolve(name));
        for (String example : examples) {
            Support.copySkill(Support.examples().resolve(example), dir);
        }
        return dir;
    }

    /** A new, empty data directory below the base. */
    Path data() throws IOException {
        return Files.createTempDirectory(base, "data");
    }

    /** An admin over a new data directory. */
    SkillGateAdmin admin() throws IOException {
        return SkillGateAdmin.open(data());
    }

    /** The events of the admin's audit log, oldest first (at most 10,000). */
    static List<AuditEvent> events(SkillGateAdmin admin) throws IOException {
        return admin.trust().records(0, 10_000).stream().map(AuditRecord::event).toList();
    }

    /** Kills and reports any process carrying the marker, removes the base, and fails when there was one. */
    void close() throws IOException {
        Support.assertNoSurvivors(marker, base);
    }
}
