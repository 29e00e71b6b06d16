package dev.skillgate.testkit;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.engine.Activation;
import dev.skillgate.engine.DrainReport;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.PortableSupervisor;
import dev.skillgate.testkit.internal.ProcScan;
import dev.skillgate.testkit.internal.TestTrees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.apiguardian.api.API;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives each test its own temporary data directory, skills root and
 * workspace, a {@link ScriptedApprovalChannel} standing in for the human, a {@link SkillGateAdmin}
 * and a {@link SkillGate} wired to them.
 *
 * <pre>{@code
 * @RegisterExtension
 * final SkillGateExtension skillgate = new SkillGateExtension();
 *
 * @Test
 * void greets() {
 *     skillgate.bundle("greeter").fixture(NodeFixture.ECHO_MJS).write();
 *     skillgate.approvals().approveNext();
 *     SkillgateAssertions.assertThat(skillgate.execute("greeter", "{\"name\":\"Ada\"}")).succeeded();
 * }
 * }</pre>
 *
 * <p>Use it with {@code @RegisterExtension} (as a field: configure it with {@link #builder()}) or
 * with {@code @ExtendWith(SkillGateExtension.class)} and parameters of type {@code SkillGate},
 * {@code SkillGateAdmin}, {@code ScriptedApprovalChannel} or {@code SkillGateExtension}. After each
 * test it closes the gate (draining in-flight executions), closes the admin, scans {@code /proc} on
 * Linux for any process still carrying the test's marker (its data directory path) and fails the
 * test if one survived or an execution did not settle, then deletes the directories.
 *
 * <p>The gate uses the real Node binary ({@link TestNode}) and the real supervisor selection: on
 * Linux the subreaper supervisor, elsewhere nothing runs unless the extension was built with
 * {@link Builder#portableSupervisor()}. Approvals are scripted: with an empty queue the channel
 * denies (or holds, see {@link Builder#holdApprovals()}). Not for tests that run concurrently in one
 * class. Nothing here is a sandbox; scripted approvals exist for tests only.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillGateExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(SkillGateExtension.class);

    private final Builder options;
    private volatile State current;

    /** An extension with the defaults: deny when no approval is queued, the Linux supervisor. */
    public SkillGateExtension() {
        this(new Builder());
    }

    private SkillGateExtension(Builder options) {
        this.options = options;
    }

    /** Configures an extension. */
    public static Builder builder() {
        return new Builder();
    }

    /** Per-test state. */
    private static final class State {
        final String marker = "sgtk-" + UUID.randomUUID().toString().substring(0, 12);
        Path base;
        Path data;
        Path skills;
        Path workspace;
        ScriptedApprovalChannel approvals;
        SkillGateAdmin admin;
        SkillGate gate;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        State s = new State();
        s.base = Files.createTempDirectory("skillgate-testkit-" + s.marker + "-");
        s.data = s.base.resolve("data");
        s.skills = Files.createDirectories(s.base.resolve("skills"));
        s.workspace = Files.createDirectories(s.base.resolve("workspace"));
        s.approvals =
                options.hold ? ScriptedApprovalChannel.holdingWhenEmpty() : ScriptedApprovalChannel.denyingWhenEmpty();
        s.admin = SkillGateAdmin.open(s.data);
        current = s;
        context.getStore(NAMESPACE).put(State.class, s);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        State s = current;
        current = null;
        if (s == null) {
            return;
        }
        List<String> problems = new ArrayList<>();
        if (s.gate != null) {
            DrainReport report = s.gate.close(options.drainWait);
            if (!report.complete()) {
                problems.add("executions did not settle: " + report.unsettled());
            }
        }
        s.approvals.close();
        s.admin.close();
        List<Long> survivors = ProcScan.killAll(s.marker);
        if (!survivors.isEmpty()) {
            problems.add("processes survived the test: " + survivors);
        }
        TestTrees.delete(s.base);
        if (!problems.isEmpty() && context.getExecutionException().isEmpty()) {
            throw new AssertionError("SkillGateExtension: " + String.join("; ", problems));
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        Class<?> type = parameter.getParameter().getType();
        return type == SkillGate.class
                || type == SkillGateAdmin.class
                || type == ScriptedApprovalChannel.class
                || type == SkillGateExtension.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        Class<?> type = parameter.getParameter().getType();
        if (type == SkillGate.class) {
            return gate();
        }
        if (type == SkillGateAdmin.class) {
            return admin();
        }
        if (type == ScriptedApprovalChannel.class) {
            return approvals();
        }
        return this;
    }

    private State state() {
        State s = current;
        if (s == null) {
            throw new IllegalStateException("SkillGateExtension is only usable inside a test");
        }
        return s;
    }

    /** This test's private data directory (policy, audit log, staging). */
    public Path dataDirectory() {
        return state().data;
    }

    /** This test's skills root, where {@link #bundle} writes. */
    public Path skillsRoot() {
        return state().skills;
    }

    /** This test's workspace (the scripts' working directory). */
    public Path workspace() {
        return state().workspace;
    }

    /** The scripted approval channel: queue decisions, read the requests shown. */
    public ScriptedApprovalChannel approvals() {
        return state().approvals;
    }

    /** The admin over this test's data directory (policy, safe mode, trust store). */
    public SkillGateAdmin admin() {
        return state().admin;
    }

    /** The agent id {@link #execute} uses. */
    public AgentId agent() {
        return options.agent;
    }

    /** The marker in this test's paths (for your own {@code /proc} checks). */
    public String marker() {
        return state().marker;
    }

    /** The gate, built at first use over this test's directories. */
    public synchronized SkillGate gate() {
        State s = state();
        if (s.gate == null) {
            SkillGate.Builder b = SkillGate.builder()
                    .admin(s.admin)
                    .skillRoot(s.skills)
                    .nodeRuntime(options.runtime.orElseGet(TestNode::runtime))
                    .approvalChannel(s.approvals)
                    .approvalTimeout(options.approvalTimeout);
            if (options.portable) {
                b.supervisor(PortableSupervisor.create()).allowUnprovenCleanup();
            }
            options.customizer.accept(b);
            s.gate = b.build();
        }
        return s.gate;
    }

    /** A bundle writer for a skill called {@code name} under this test's skills root. */
    public SkillBundle bundle(String name) {
        return SkillBundle.under(skillsRoot(), name);
    }

    /** Runs {@code skill} with {@code json} as the invocation, a fresh run id, the agent and the workspace. */
    public ExecutionEnvelope execute(String skill, String json) {
        return execute(skill, json.getBytes(StandardCharsets.UTF_8));
    }

    /** Runs {@code skill} with exact invocation bytes. */
    public ExecutionEnvelope execute(String skill, byte[] invocation) {
        return gate().execute(ExecutionRequest.of(RunId.random(), agent(), skill, invocation, workspace()));
    }

    /** Inspects {@code skill} (inert); fails the test when no loadable skill has that name. */
    public Inspection inspect(String skill) {
        Inspection report = gate().inspect(skill);
        if (report.captureProblem()
                .map(d -> d.code() == ErrorCode.SKILL_NOT_FOUND)
                .orElse(false)) {
            throw new AssertionError("no loadable skill named " + skill + " under " + skillsRoot());
        }
        return report;
    }

    /** Activates a prompt skill for the extension's agent with {@code context}. */
    public Activation activate(String skill, AgentContext context) {
        return gate().activate(agent(), skill, context);
    }

    /** Every event in this test's audit log, in order. */
    public List<AuditEvent> auditEvents() {
        try {
            return admin().trust().records(0, 10_000).stream()
                    .map(AuditRecord::event)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Configures a {@link SkillGateExtension}. */
    public static final class Builder {
        private boolean hold;
        private boolean portable;
        private Duration approvalTimeout = Duration.ofSeconds(30);
        private Duration drainWait = Duration.ofSeconds(60);
        private AgentId agent = AgentId.of("testkit-agent");
        private Optional<NodeRuntime> runtime = Optional.empty();
        private Consumer<SkillGate.Builder> customizer = b -> {};

        private Builder() {}

        /** With an empty queue, hold requests until a decision is queued (instead of denying). */
        public Builder holdApprovals() {
            this.hold = true;
            return this;
        }

        /** How long one approval may take before it is a timeout (default 30 s). */
        public Builder approvalTimeout(Duration timeout) {
            this.approvalTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * Opts in to the portable supervisor where no proving one exists: runs start but end
         * {@code CLEANUP_UNKNOWN}, never {@code SUCCEEDED}.
         */
        public Builder portableSupervisor() {
            this.portable = true;
            return this;
        }

        /** The agent id {@code execute} uses (default {@code testkit-agent}). */
        public Builder agent(AgentId agent) {
            this.agent = Objects.requireNonNull(agent, "agent");
            return this;
        }

        /** A pinned runtime instead of {@link TestNode#runtime()}. */
        public Builder nodeRuntime(NodeRuntime runtime) {
            this.runtime = Optional.of(runtime);
            return this;
        }

        /** How long {@code afterEach} waits for executions to settle (default 60 s). */
        public Builder drainWait(Duration wait) {
            this.drainWait = Objects.requireNonNull(wait, "wait");
            return this;
        }

        /** Anything else on the gate's builder (listeners, supervisor choice). */
        public Builder customize(Consumer<SkillGate.Builder> customizer) {
            this.customizer = Objects.requireNonNull(customizer, "customizer");
            return this;
        }

        /** The extension (a snapshot of this configuration). */
        public SkillGateExtension build() {
            Builder copy = new Builder();
            copy.hold = hold;
            copy.portable = portable;
            copy.approvalTimeout = approvalTimeout;
            copy.drainWait = drainWait;
            copy.agent = agent;
            copy.runtime = runtime;
            copy.customizer = customizer;
            return new SkillGateExtension(copy);
        }
    }
}
