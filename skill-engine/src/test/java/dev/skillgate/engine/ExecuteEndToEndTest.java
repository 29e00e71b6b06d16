package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.PortableSupervisor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The acceptance tests of the execution path through the facade, with a real {@code node} and the
 * real Linux subreaper supervisor: every consent, policy and gate outcome, and the audit trail.
 * After the class, {@code /proc} is scanned for any process that carries this class's marker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class ExecuteEndToEndTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final String HELLO_INPUT = "{\"name\":\"Ada\"}";

    private SkillGateAdmin admin;
    private final List<SkillGate> gates = new ArrayList<>();

    @BeforeEach
    void freshState() throws IOException {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        Bundles.fixtureSkill(skills, "print-env", NodeFixture.PRINT_ENV, 10_000);
        admin = SkillGateAdmin.open(data);
    }

    @AfterEach
    void closeGates() {
        gates.forEach(SkillGate::close);
        gates.clear();
        admin.close();
    }

    private SkillGate gate(ApprovalChannel channel) {
        return gate(channel, b -> {});
    }

    private SkillGate gate(ApprovalChannel channel, Consumer<SkillGate.Builder> extra) {
        SkillGate.Builder b = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel);
        extra.accept(b);
        SkillGate gate = b.build();
        gates.add(gate);
        return gate;
    }

    private ExecutionRequest hello(RunId run) {
        return ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace);
    }

    private ExecutionRequest writer(String fileName) {
        return ExecutionRequest.of(RunId.random(), AGENT, "writer", "{\"fileName\":\"" + fileName + "\"}", workspace);
    }

    private List<AuditEvent> auditEvents() throws IOException {
        return admin.trust().records(0, 1000).stream().map(AuditRecord::event).toList();
    }

    /** The audit log's events once it holds any (at most 30 s), else the empty list. */
    private List<AuditEvent> awaitAuditEvents() throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<AuditEvent> events = auditEvents();
        while (events.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            events = auditEvents();
        }
        return events;
    }

    private boolean stagingEmpty() throws IOException {
        Path staging = data.resolve("staging");
        if (!Files.exists(staging)) {
            return true;
        }
        try (var s = Files.list(staging)) {
            return s.findAny().isEmpty();
        }
    }

    // --- approve → success, and what the human was shown ---

    @Test
    void approvedRunSucceedsWithTheCheckedOutputAndProvenCleanup() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        RunId run = RunId.random();

        ExecutionEnvelope env = gate.execute(hello(run));

        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(env.output()).contains("{\"greeting\":\"Hello, Ada!\",\"length\":11}");
        assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(env.hardening()).isNotEqualTo(HardeningLayer.NONE);
        assertThat(env.runtimeVersion()).contains(Support.nodeVersion());
        assertThat(gate.supervisor().name()).isEqualTo("linux-subreaper");
        assertThat(stagingEmpty()).as("staging removed after proven cleanup").isTrue();

        assertThat(channel.requests()).hasSize(1);
        ApprovalRequest shown = channel.requests().get(0);
        assertThat(shown.artifact().revision()).isEqualTo(env.revision().orElseThrow());
        assertThat(shown.invocation().digest())
                .isEqualTo(Sha256Digest.hash(HELLO_INPUT.getBytes(StandardCharsets.UTF_8)));
        assertThat(shown.invocation().prettyText()).isEqualTo("{\n  \"name\": \"Ada\"\n}");
        assertThat(shown.fullTrustWarning()).contains("not a sandbox");
        assertThat(shown.enforcement().isolation()).isEqualTo(Enforcement.ISOLATION);
        assertThat(shown.artifact().files())
                .extracting(f -> f.path().value())
                .containsExactly("SKILL.md", "execution.json", "scripts/hello.mjs");
        assertThat(shown.artifact().readEntrypointSource())
                .hasValueSatisfying(s -> assertThat(s).contains("Hello, ${input.name}!"));
        assertThat(shown.workspace().realPath()).isEqualTo(workspace.toRealPath());
        assertThat(shown.timeout()).isEqualTo(new Timeout(10_000));
        assertThat(shown.outputLimit()).isEqualTo(new OutputLimit(1024));
        assertThat(shown.run()).isEqualTo(run);

        // The consumption is in the audit log, bound to this run, revision and binding; then the outcome.
        assertThat(auditEvents()).hasSize(2);
        assertThat(auditEvents().get(1)).isInstanceOfSatisfying(AuditEvent.Settled.class, st -> {
            assertThat(st.run()).isEqualTo(run);
            assertThat(st.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(st.cleanup()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(st.layer()).isEqualTo(env.hardening());
        });
        assertThat(auditEvents().get(0)).isInstanceOfSatisfying(AuditEvent.Consumed.class, c -> {
            assertThat(c.run()).isEqualTo(run);
            assertThat(c.agent()).isEqualTo(AGENT);
            assertThat(c.revision()).isEqualTo(env.revision().orElseThrow());
            assertThat(c.binding()).isEqualTo(shown.binding().digest());
        });
    }

    @Test
    void theArgvShownForApprovalIsTheArgvThatRuns() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ExecutionEnvelope env =
                gate(channel).execute(ExecutionRequest.of(RunId.random(), AGENT, "print-env", "{}", workspace));
        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        List<String> shown = channel.requests().get(0).argv();
        // The script reports process.execArgv (the flags) and process.argv[1] (the entrypoint).
        String output = env.output().orElseThrow();
        // Every flag is shown exactly, except the module guard's data: URL, shown as its placeholder
        // (decision 0510): the script saw that URL in its place.
        assertThat(shown).contains("--import", NodeRunner.MODULE_GUARD_PLACEHOLDER);
        StringBuilder flags = new StringBuilder("\\[");
        for (String flag : shown.subList(1, shown.size() - 2)) {
            flags.append(flags.length() > 2 ? "," : "")
                    .append(
                            flag.equals(NodeRunner.MODULE_GUARD_PLACEHOLDER)
                                    ? "\"data:text/javascript;base64,[A-Za-z0-9+/=]+\""
                                    : Pattern.quote("\"" + flag + "\""));
        }
        flags.append("\\]");
        assertThat(output).containsPattern("\"execArgv\":" + flags);
        assertThat(shown.get(shown.size() - 2)).isEqualTo("--");
        String entry = shown.get(shown.size() - 1);
        Pattern staged = Pattern.compile(Pattern.quote(entry).replace("<attempt>", "\\E[0-9a-f]{32}\\Q"));
        String ranEntry = output.replaceAll(".*\"argv\":\\[\"[^\"]*\",\"([^\"]*)\".*", "$1");
        assertThat(ranEntry).matches(staged);
        assertThat(shown.get(0)).isEqualTo(Support.runtime().executable().toString());
    }

    // --- refusals before anything starts ---

    @Test
    void deniedApprovalRefusesAndNothingRuns() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().denyNext("no thanks");
        ExecutionEnvelope env = gate(channel).execute(writer("denied.txt"));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_DENIED);
        assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(workspace.resolve("denied.txt")).doesNotExist();
        assertThat(stagingEmpty()).isTrue();
        assertThat(auditEvents()).isEmpty();
    }

    @Test
    void theSixtyFifthProposalOfARunIsRefusedExplicitlyAndAnotherRunStillAsks() throws IOException {
        // SPEC §8/§15: at most 64 proposals per run; the 65th is rejected explicitly.
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        // The per-agent rate bound (decision 0763) is raised so that the per-run limit is what is tested.
        SkillGate gate = gate(channel, b -> b.maxApprovalRequestsPerAgentPerMinute(1000));
        RunId run = RunId.random();
        for (int i = 0; i < 64; i++) {
            assertThat(gate.execute(hello(run)).errorCodes()).containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        }
        assertThat(channel.requests()).hasSize(64);
        ExecutionEnvelope sixtyFifth = gate.execute(hello(run));
        assertThat(sixtyFifth.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(sixtyFifth.errorCodes()).containsExactly(ErrorCode.PROPOSAL_LIMIT);
        assertThat(channel.requests()).as("nobody is asked for the 65th").hasSize(64);
        assertThat(gate.execute(hello(RunId.random())).errorCodes())
                .containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
    }

    @Test
    void approvalTimeoutRefuses() throws IOException {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        long start = System.nanoTime();
        ExecutionEnvelope env =
                gate(channel, b -> b.approvalTimeout(Duration.ofMillis(300))).execute(writer("late.txt"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_TIMEOUT);
        // A late approval changes nothing: nothing runs and no run is consumed or settled. The late
        // answer itself is recorded, off the answering thread, and is then the log's only record
        // (waited for: asserting an empty log raced that write).
        channel.approveNext();
        List<AuditEvent> events = awaitAuditEvents();
        assertThat(workspace.resolve("late.txt")).doesNotExist();
        assertThat(events)
                .singleElement()
                .isInstanceOfSatisfying(
                        AuditEvent.LateAnswer.class,
                        late -> assertThat(late.approved()).isTrue());
        channel.close();
    }

    @Test
    void sourceEditedBetweenApprovalAndLaunchRefusesAsRevisionChanged() throws IOException {
        Path script = skills.resolve("writer").resolve("scripts").resolve(NodeFixture.CHDIR_WRITE_WORKSPACE.fileName());
        ApprovalChannel editThenApprove = request -> {
            try {
                Files.write(script, "\n// edited\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return CompletableFuture.completedFuture(request.approve());
        };
        ExecutionEnvelope env = gate(editThenApprove).execute(writer("edited.txt"));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.CAPTURE_REVISION_MISMATCH);
        assertThat(workspace.resolve("edited.txt")).doesNotExist();
        assertThat(stagingEmpty()).isTrue();
    }

    @Test
    void policySwitchedToBlockedBetweenApprovalAndLaunchRefuses() {
        ApprovalChannel blockThenApprove = request -> {
            assertThat(admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.BLOCKED))
                            .isSuccess())
                    .isTrue();
            return CompletableFuture.completedFuture(request.approve());
        };
        ExecutionEnvelope env = gate(blockThenApprove).execute(writer("blocked.txt"));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.POLICY_BLOCKED);
        assertThat(workspace.resolve("blocked.txt")).doesNotExist();
    }

    @Test
    void safeModeRefusesWithoutAsking() {
        admin.setSafeMode(true);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ExecutionEnvelope env = gate(channel).execute(writer("safe.txt"));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.GATE_SAFE_MODE);
        assertThat(channel.requests()).isEmpty();
        assertThat(workspace.resolve("safe.txt")).doesNotExist();
    }

    @Test
    void blockedPolicyRefusesWithoutAsking() {
        admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.BLOCKED));
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ExecutionEnvelope env = gate(channel).execute(writer("b.txt"));
        assertThat(env.errorCodes()).containsExactly(ErrorCode.POLICY_BLOCKED);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void invalidInputIsRefusedWithPointersBeforeAnyoneIsAsked() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ExecutionEnvelope env = gate(channel)
                .execute(ExecutionRequest.of(RunId.random(), AGENT, "hello-world", "{\"name\":5}", workspace));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.VALUE_TYPE);
        assertThat(env.errors().get(0).location()).isEqualTo("/name");
        assertThat(channel.requests()).isEmpty();
        ExecutionEnvelope dup = gate(channel)
                .execute(ExecutionRequest.of(
                        RunId.random(), AGENT, "hello-world", "{\"name\":\"a\",\"name\":\"b\"}", workspace));
        assertThat(dup.errorCodes()).containsExactly(ErrorCode.JSON_DUPLICATE_KEY);
    }

    @Test
    void unknownSkillAndMissingWorkspaceAreRefused() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        assertThat(gate.execute(ExecutionRequest.of(RunId.random(), AGENT, "no-such-skill", "{}", workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.SKILL_NOT_FOUND);
        assertThat(gate.execute(ExecutionRequest.of(
                                RunId.random(), AGENT, "hello-world", HELLO_INPUT, workspace.resolve("missing")))
                        .errorCodes())
                .containsExactly(ErrorCode.WORKSPACE_UNAVAILABLE);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void aRuntimeThatDoesNotMatchItsPinIsRefusedBeforeAsking() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel, b -> b.nodeRuntime(NodeRuntime.pinned(Support.node(), "v0.0.1")));
        assertThat(gate.execute(hello(RunId.random())).errorCodes()).containsExactly(ErrorCode.RUNTIME_MISMATCH);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void withoutAProvingSupervisorOrOptInNothingRuns() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel, b -> b.supervisor(PortableSupervisor.create()));
        ExecutionEnvelope env = gate.execute(writer("portable.txt"));
        assertThat(env.errorCodes()).containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);
        assertThat(gate.supervisor().available()).isFalse();
        assertThat(channel.requests()).isEmpty();
        assertThat(workspace.resolve("portable.txt")).doesNotExist();
    }

    @Test
    void thePortableSupervisorByOptInRunsButNeverSucceedsAndIsListedUnresolved() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate =
                gate(channel, b -> b.supervisor(PortableSupervisor.create()).allowUnprovenCleanup());
        RunId run = RunId.random();
        ExecutionEnvelope env = gate.execute(hello(run));
        assertThat(env.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED);
        assertThat(env.output()).isEmpty();
        assertThat(gate.unresolved()).singleElement().satisfies(u -> {
            assertThat(u.run()).isEqualTo(run);
            assertThat(u.state()).isEqualTo(UnresolvedExecution.State.CLEANUP_UNKNOWN);
            assertThat(u.revision()).isEqualTo(env.revision());
            assertThat(u.retainedStaging()).isEqualTo(env.cleanup().retainedStaging());
        });
        // This JVM staged it and is alive: the janitor cannot prove the owner dead.
        SkillGateAdmin.Resolution r = admin.resolve(run);
        assertThat(r.resolved()).isFalse();
        assertThat(r.kept()).singleElement().asString().startsWith("OWNER_ALIVE");
    }

    // --- trusted-revision receipts ---

    @Test
    void aReceiptScopeMatchRunsWithoutAskingAndAnotherWorkspaceAsks() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        Revision revision = gate.execute(hello(RunId.random())).revision().orElseThrow();
        assertThat(channel.requests()).hasSize(1);

        assertThat(admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536))
                        .isSuccess())
                .isTrue();
        for (String name : List.of("Grace", "Edsger")) {
            ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                    RunId.random(), AGENT, "hello-world", "{\"name\":\"" + name + "\"}", workspace));
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(env.output().orElseThrow()).contains("Hello, " + name + "!");
        }
        assertThat(channel.requests()).as("a receipt match asks nobody").hasSize(1);

        Path other = Files.createDirectories(workspace.resolveSibling("other workspace"));
        ExecutionEnvelope elsewhere =
                gate.execute(ExecutionRequest.of(RunId.random(), AGENT, "hello-world", HELLO_INPUT, other));
        assertThat(channel.requests()).as("another workspace asks").hasSize(2);
        assertThat(elsewhere.errorCodes()).containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);

        ExecutionEnvelope otherAgent = gate.execute(
                ExecutionRequest.of(RunId.random(), AgentId.of("agent-2"), "hello-world", HELLO_INPUT, workspace));
        assertThat(channel.requests()).as("another agent asks").hasSize(3);
        assertThat(otherAgent.status()).isEqualTo(ExecutionStatus.REFUSED);
    }

    @Test
    void everyApprovalConsumptionAndRevocationIsInTheAuditLog() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        RunId first = RunId.random();
        Revision revision = gate.execute(hello(first)).revision().orElseThrow();
        admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536));
        ScopeEntry entry = admin.currentPolicy().scopes().get(0);
        ExecutionScope scope = new ExecutionScope(
                revision,
                AGENT,
                ExecutionScope.workspaceDigest(entry.scope().workspace()),
                new Timeout(60_000),
                new OutputLimit(65_536),
                entry.receipt().orElseThrow().id(),
                entry.receipt().orElseThrow().approvedAt());
        admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME)); // removes the scope: revoked

        List<AuditEvent> all = auditEvents();
        assertThat(all.get(1))
                .isInstanceOfSatisfying(
                        AuditEvent.Settled.class, st -> assertThat(st.run()).isEqualTo(first));
        List<AuditEvent> events =
                all.stream().filter(e -> !(e instanceof AuditEvent.Settled)).toList();
        assertThat(events).hasSize(5);
        assertThat(events.get(0))
                .isInstanceOfSatisfying(
                        AuditEvent.Consumed.class, c -> assertThat(c.run()).isEqualTo(first));
        assertThat(events.get(1))
                .isInstanceOfSatisfying(
                        AuditEvent.PolicyChanged.class,
                        p -> assertThat(p.mode()).isEqualTo("TRUST_SELECTED_REVISIONS"));
        assertThat(events.get(2)).isEqualTo(new AuditEvent.Approved(scope));
        assertThat(events.get(3))
                .isInstanceOfSatisfying(
                        AuditEvent.PolicyChanged.class,
                        p -> assertThat(p.mode()).isEqualTo("ASK_EACH_TIME"));
        assertThat(events.get(4)).isEqualTo(new AuditEvent.Revoked(scope));
    }

    @Test
    void aReceiptRevokedInTheTrustStoreIsNoLongerHonoured() {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        Revision revision = gate.execute(hello(RunId.random())).revision().orElseThrow();
        admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536));
        assertThat(gate.execute(hello(RunId.random())).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(channel.requests()).hasSize(1);

        var decision = admin.trust().list().stream()
                .filter(d -> d.scope() instanceof ExecutionScope)
                .findFirst()
                .orElseThrow();
        assertThat(admin.trust().revoke(decision.scope()).isCommitted()).isTrue();
        ExecutionEnvelope env = gate.execute(hello(RunId.random()));
        assertThat(channel.requests())
                .as("the revoked receipt no longer waives the question")
                .hasSize(2);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
    }

    @Test
    void aReceiptRevokedAfterItAuthorisedALaunchButBeforeTheLaunchStopsIt() {
        // SPEC §8: revocation applies to every launch that has not started. The listener revokes the
        // receipt in the audit log right after it authorised this launch, before the re-checks.
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        java.util.concurrent.atomic.AtomicBoolean revokeOnAuthorised = new java.util.concurrent.atomic.AtomicBoolean();
        SkillGate gate = gate(
                channel,
                b -> b.listener(event -> {
                    if (event.kind() == ExecutionEvent.Kind.AUTHORISED && revokeOnAuthorised.getAndSet(false)) {
                        var decision = admin.trust().list().stream()
                                .filter(d -> d.scope() instanceof ExecutionScope)
                                .findFirst()
                                .orElseThrow();
                        assertThat(admin.trust().revoke(decision.scope()).isCommitted())
                                .isTrue();
                    }
                }));
        Revision revision = gate.execute(hello(RunId.random())).revision().orElseThrow();
        admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536));
        revokeOnAuthorised.set(true);
        ExecutionEnvelope env = gate.execute(hello(RunId.random()));
        assertThat(revokeOnAuthorised).isFalse();
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.TRUST_REVOKED);
        assertThat(channel.requests())
                .as("nobody was asked: the receipt authorised it")
                .hasSize(1);
    }
}
