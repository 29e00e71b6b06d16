package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.ToolClass;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * What the engine reports about a launch — how it was authorised (the AUTHORISED event's {@link
 * LaunchAuthority}), the runtime digest it was verified against (envelope and settlement record) —
 * and that it keeps and runs nothing in a data directory another user could change (decision 0520),
 * even when that directory holds a valid receipt: real node, real supervisor, real files.
 */
@EnabledOnOs(OS.LINUX)
@org.junit.jupiter.api.Timeout(120)
class AuthorityAndPlacementTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final int OTHER_UID = 2_000_000_000 + new java.util.Random().nextInt(100_000_000);

    private ExecutionRequest writer(String fileName) {
        return ExecutionRequest.of(RunId.random(), AGENT, "writer", "{\"fileName\":\"" + fileName + "\"}", workspace);
    }

    private SkillGate gate(Path dataDir, ScriptedApprovalChannel channel, List<ExecutionEvent> events) {
        return gate(dataDir, channel, events, Support.runtime());
    }

    private SkillGate gate(
            Path dataDir, ScriptedApprovalChannel channel, List<ExecutionEvent> events, NodeRuntime runtime) {
        return SkillGate.builder()
                .dataDirectory(dataDir)
                .skillRoot(skills)
                .nodeRuntime(runtime)
                .approvalChannel(channel)
                .listener(events::add)
                .build();
    }

    private static List<LaunchAuthority> authorities(List<ExecutionEvent> events) {
        return events.stream()
                .filter(e -> e.kind() == ExecutionEvent.Kind.AUTHORISED)
                .map(e -> e.authority().orElseThrow())
                .toList();
    }

    private static Sha256Digest sha256(Path file) throws Exception {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(file)) {
            md.update(in.readAllBytes());
        }
        return Sha256Digest.of(md.digest());
    }

    @Test
    void aReceiptAuthorisedLaunchSaysSoWithTheReceiptAndItsScopeAndAnAskedOneSaysItWasAsked() throws IOException {
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        List<ExecutionEvent> events = new CopyOnWriteArrayList<>();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(channel)
                        .listener(events::add)
                        .build()) {
            ExecutionEnvelope first = gate.execute(writer("asked.txt"));
            assertThat(first.status()).as(first.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(authorities(events)).containsExactly(new LaunchAuthority.Asked());

            Revision revision = first.revision().orElseThrow();
            admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536))
                    .orElseThrow();
            events.clear();
            ExecutionEnvelope second = gate.execute(writer("receipt.txt"));
            assertThat(second.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(channel.requests())
                    .as("nobody was asked the second time")
                    .hasSize(1);

            TrustDecision decision = admin.trust().list().stream()
                    .filter(d -> d.scope() instanceof ExecutionScope)
                    .findFirst()
                    .orElseThrow();
            ExecutionScope recorded = (ExecutionScope) decision.scope();
            assertThat(authorities(events)).singleElement().satisfies(a -> {
                assertThat(a).isInstanceOf(LaunchAuthority.TrustedRevision.class);
                LaunchAuthority.TrustedRevision t = (LaunchAuthority.TrustedRevision) a;
                assertThat(t.receipt().id()).isEqualTo(recorded.receiptId());
                assertThat(t.receipt().approvedAt()).isEqualTo(recorded.receiptIssuedAt());
                assertThat(t.scopeId()).as("the id trust revoke takes").isEqualTo(recorded.id());
                assertThat(t.scope().revision()).isEqualTo(revision);
                assertThat(t.scope().agent()).isEqualTo(AGENT);
                assertThat(t.scope().workspace().realPath()).isEqualTo(workspace.toRealPath());
                assertThat(t.scope().timeoutCeiling()).isEqualTo(new Timeout(60_000));
            });
            // The AUTHORISED event comes before the launch.
            int authorised = indexOf(events, ExecutionEvent.Kind.AUTHORISED);
            int launching = indexOf(events, ExecutionEvent.Kind.LAUNCHING);
            assertThat(authorised).isNotNegative().isLessThan(launching);
        }
    }

    private static int indexOf(List<ExecutionEvent> events, ExecutionEvent.Kind kind) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).kind() == kind) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void aPinnedRuntimeDigestIsInTheEnvelopeAndTheSettlementRecordAndAnUnpinnedOneIsNot() throws Exception {
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        Path real = Support.node().toRealPath();
        Sha256Digest digest = sha256(real);
        NodeRuntime pinned = NodeRuntime.pinned(real, Support.nodeVersion(), digest);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext().approveNext();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                SkillGate withPin = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(pinned)
                        .approvalChannel(channel)
                        .build()) {
            ExecutionEnvelope env = withPin.execute(writer("pinned.txt"));
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(env.runtimeSha256()).contains(digest);
            assertThat(lastSettlement(admin).runtimeSha256()).contains(digest);
        }
        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                SkillGate noPin = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(channel)
                        .build()) {
            ExecutionEnvelope env = noPin.execute(writer("unpinned.txt"));
            assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(env.runtimeSha256()).isEmpty();
            assertThat(lastSettlement(admin).runtimeSha256()).isEmpty();
        }
    }

    private static AuditEvent.Settled lastSettlement(SkillGateAdmin admin) throws IOException {
        List<AuditRecord> records = admin.trust().records(0, 1000);
        return records.stream()
                .map(AuditRecord::event)
                .filter(AuditEvent.Settled.class::isInstance)
                .map(AuditEvent.Settled.class::cast)
                .reduce((a, b) -> b)
                .orElseThrow();
    }

    @Test
    void aDataDirectoryBelowADirectoryOthersCanWriteKeepsAndRunsNothing() throws IOException {
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        Path shared = Files.createDirectory(data.getParent().resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path unsafe = shared.resolve("data");
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        List<ExecutionEvent> events = new CopyOnWriteArrayList<>();
        try (SkillGate gate = gate(unsafe, channel, events)) {
            // Not even the supervisor helper is extracted there.
            SupervisorSelection selection = gate.supervisor();
            assertThat(selection.available()).isFalse();
            assertThat(selection.problems()).extracting(d -> d.code()).containsExactly(ErrorCode.DATA_DIRECTORY_UNSAFE);
            ExecutionEnvelope env = gate.execute(writer("never.txt"));
            assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.DATA_DIRECTORY_UNSAFE);
            assertThat(env.errors().get(0).location()).isEqualTo(shared.toString());
            assertThat(env.errors().get(0).message())
                    .startsWith("the data directory " + unsafe + " can be changed by another user: ")
                    .contains("is writable by group or others");
            assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
            assertThat(channel.requests()).as("nobody is asked").isEmpty();
            assertThat(workspace.resolve("never.txt")).doesNotExist();
            Activation activation = gate.activate(
                    "writer",
                    AgentContext.of(
                            "agent-1",
                            SemVer.parse("1.0.0"),
                            Set.of(InputType.TEXT),
                            Set.of(ToolClass.AGENT_NATIVE),
                            PermissionMode.READ_ONLY));
            assertThat(activation).isInstanceOf(Activation.Refused.class);
            assertThat(((Activation.Refused) activation).reasons())
                    .extracting(d -> d.code())
                    .containsExactly(ErrorCode.DATA_DIRECTORY_UNSAFE);
        }
        assertThat(unsafe).as("nothing was created there").doesNotExist();
        try (SkillGateAdmin admin = SkillGateAdmin.open(unsafe)) {
            assertThat(admin.savePolicy(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of()))
                            .failure()
                            .orElseThrow()
                            .code())
                    .isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        }
        assertThat(unsafe).doesNotExist();
    }

    /**
     * The attack the rule stops: another user owns a directory on the path of the victim's data
     * directory, so they can rename the victim's data directory away and put their own in its place —
     * a valid policy with a receipt, and a valid, correctly chained audit log that vouches for it.
     * Without the placement rule that receipt would run the skill silently.
     */
    @Test
    void aDataDirectoryPlantedWithAValidReceiptBelowAnotherUsersDirectoryRunsNothing() throws Exception {
        assumeTrue(DirectoryPlacementProbe.runningAsRoot(), "only root can hand a directory to another uid");
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        // The planted state, built by the library itself in a private place: a real receipt for the skill.
        Path staged = data.getParent().resolve("planted");
        Revision revision;
        ScriptedApprovalChannel once =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        try (SkillGate gate = gate(staged, once, new CopyOnWriteArrayList<>())) {
            revision = gate.execute(writer("setup.txt")).revision().orElseThrow();
        }
        try (SkillGateAdmin admin = SkillGateAdmin.open(staged)) {
            admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536))
                    .orElseThrow();
        }
        Files.delete(workspace.resolve("setup.txt"));
        // Another user's directory on the victim's path, and the planted data directory moved into it.
        Path theirs = Files.createDirectory(data.getParent().resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
        Path victimData = theirs.resolve("data");
        Files.move(staged, victimData, StandardCopyOption.ATOMIC_MOVE);

        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        List<ExecutionEvent> events = new CopyOnWriteArrayList<>();
        try (SkillGate gate = gate(victimData, channel, events)) {
            ExecutionEnvelope env = gate.execute(writer("planted.txt"));
            assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.DATA_DIRECTORY_UNSAFE);
            assertThat(env.errors().get(0).location()).isEqualTo(theirs.toString());
            assertThat(authorities(events)).as("the receipt authorised nothing").isEmpty();
        }
        assertThat(workspace.resolve("planted.txt")).doesNotExist();
        // The same directory, moved back to a place only this user controls, is honoured again: the
        // refusal was about where it lives, not what it holds.
        Path back = data.getParent().resolve("back");
        Files.move(victimData, back, StandardCopyOption.ATOMIC_MOVE);
        List<ExecutionEvent> events2 = new CopyOnWriteArrayList<>();
        try (SkillGate gate = gate(back, ScriptedApprovalChannel.denyingWhenEmpty(), events2)) {
            ExecutionEnvelope env = gate.execute(writer("back.txt"));
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(authorities(events2)).singleElement().isInstanceOf(LaunchAuthority.TrustedRevision.class);
        }
        assertThat(workspace.resolve("back.txt")).exists();
    }

    /** Whether this JVM runs as root (then it can hand a directory to another uid). */
    static final class DirectoryPlacementProbe {
        private DirectoryPlacementProbe() {}

        static boolean runningAsRoot() {
            try {
                return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
    }
}
