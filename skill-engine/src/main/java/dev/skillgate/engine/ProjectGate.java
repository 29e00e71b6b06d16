package dev.skillgate.engine;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyView;
import dev.skillgate.engine.internal.AuditTrail;
import dev.skillgate.engine.internal.SupervisorSelector;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.project.ProjectApprovalChannel;
import dev.skillgate.project.ProjectApprovalRequest;
import dev.skillgate.project.ProjectEnvelope;
import dev.skillgate.project.ProjectInspection;
import dev.skillgate.project.ProjectInspector;
import dev.skillgate.project.ProjectPlan;
import dev.skillgate.project.ProjectRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * The sibling facade of {@link SkillGate} for the Node project profile (seed ADR-007, decision 0650):
 * inspects a project (inert), shows the exact plan to the human through a
 * {@link ProjectApprovalChannel}, records the consumed approval in the admin's audit log before
 * anything starts, runs the approved steps through the {@link ProjectRunner} under a supervisor that
 * proves cleanup, and records how the run settled.
 *
 * <p>Every run asks: there are no trusted revisions for projects. The policy still applies: a
 * {@code BLOCKED} or unusable policy, safe mode or a revoked capability refuse before the approval is
 * asked. Not a sandbox: the project's code and its dependencies run as the host user, with the
 * user's files and network.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectGate implements AutoCloseable {
    private final SkillGateAdmin admin;
    private final ExecuteCapability capability;
    private final NodeRuntime runtime;
    private final ProjectApprovalChannel channel;
    private final Duration approvalTimeout;
    private final ProcessSupervisor explicitSupervisor;
    private final Optional<Path> delegatedCgroup;
    private final Optional<Path> helperDirectory;
    private SupervisorSelector.Choice supervisor;

    private ProjectGate(Builder b) {
        this.admin = b.admin;
        this.capability = b.admin.grantEngineCapability();
        this.runtime = b.runtime;
        this.channel = b.channel;
        this.approvalTimeout = b.approvalTimeout;
        this.explicitSupervisor = b.supervisor;
        this.delegatedCgroup = b.delegatedCgroup;
        this.helperDirectory = b.helperDirectory;
    }

    /** The supervisor choice, made at the first use (probing installs the helper). */
    private synchronized SupervisorSelector.Choice choice() {
        if (supervisor == null) {
            List<ProcessSupervisor> candidates = new ArrayList<>();
            LinuxSubreaperSupervisor.Builder linux = LinuxSubreaperSupervisor.builder()
                    .dataDirectory(admin.dataDirectory())
                    .spareHelper(false);
            delegatedCgroup.ifPresent(linux::delegatedCgroup);
            helperDirectory.ifPresent(linux::helperDirectory);
            candidates.add(linux.build());
            supervisor = SupervisorSelector.select(
                    Optional.ofNullable(explicitSupervisor), Optional.empty(), false, candidates);
        }
        return supervisor;
    }

    /** A builder; the admin, the runtime and the approval channel are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Which supervisor project runs use, and why. */
    public SupervisorSelection supervisor() {
        return choice().report();
    }

    /** Inspects {@code request}'s project without running anything. */
    public ProjectInspection inspect(ProjectRequest request) {
        return ProjectInspector.inspect(request.project(), request.outputDirectory());
    }

    /**
     * Inspects, asks for approval of the exact plan, records it, runs the steps and records the
     * settlement. Every failure before a step starts is a {@code REFUSED} envelope with its code.
     */
    public ProjectEnvelope run(ProjectRequest request) {
        Objects.requireNonNull(request, "request");
        long start = System.nanoTime();
        AuditTrail trail = admin.trail();
        Optional<Diagnostic> auditDown = trail.unavailable();
        if (auditDown.isPresent()) {
            return refused(request, start, Optional.empty(), Optional.empty(), List.of(auditDown.get()));
        }
        Optional<Diagnostic> gate = gate();
        if (gate.isPresent()) {
            return refused(request, start, Optional.empty(), Optional.empty(), List.of(gate.get()));
        }
        SupervisorSelector.Choice chosen = choice();
        if (chosen.supervisor().isEmpty()) {
            return refused(
                    request,
                    start,
                    Optional.empty(),
                    Optional.empty(),
                    chosen.report().problems());
        }
        NodeRuntime.Verification verification = runtime.verify();
        if (verification instanceof NodeRuntime.Refused r) {
            return refused(request, start, Optional.empty(), Optional.empty(), List.of(r.reason()));
        }
        NodeRuntime.Verified verified = (NodeRuntime.Verified) verification;
        ProjectInspection inspection = inspect(request);
        ProjectPlan.Selection selection = ProjectPlan.select(
                inspection, request.scripts(), verified.identity(), verified.major(), verified.minor());
        if (selection instanceof ProjectPlan.Refused r) {
            Optional<Revision> revision = inspection.snapshot().map(s -> s.revision());
            return refused(request, start, Optional.empty(), revision, r.reasons());
        }
        ProjectPlan plan = ((ProjectPlan.Planned) selection).plan();
        Optional<Sha256Digest> digest = Optional.of(plan.digest());
        Optional<Revision> revision = Optional.of(plan.revision());

        Optional<Diagnostic> denial = ask(new ProjectApprovalRequest(request.run(), request.agent(), plan));
        if (denial.isPresent()) {
            return refused(request, start, digest, revision, List.of(denial.get()));
        }
        Optional<Diagnostic> regate = gate();
        if (regate.isPresent()) {
            return refused(request, start, digest, revision, List.of(regate.get()));
        }
        Optional<Diagnostic> notRecorded =
                trail.consumed(new AuditEvent.Consumed(request.run(), request.agent(), plan.revision(), plan.digest()));
        if (notRecorded.isPresent()) {
            return refused(request, start, digest, revision, List.of(notRecorded.get()));
        }
        ProjectEnvelope envelope = ProjectRunner.of(
                        admin.dataDirectory(), runtime, chosen.supervisor().get())
                .run(request.run(), plan);
        settle(trail, request, plan.revision(), envelope, plan.runtime().binaryDigest());
        return envelope;
    }

    private Optional<Diagnostic> gate() {
        PolicyView view = admin.view();
        if (!view.holds(capability)) {
            return Optional.of(Diagnostic.error(ErrorCode.GATE_CAPABILITY_MISSING, "", "this project gate is closed"));
        }
        if (view.safeMode()) {
            return Optional.of(Diagnostic.error(ErrorCode.GATE_SAFE_MODE, "", "safe mode is on"));
        }
        PolicySnapshot policy = view.policy();
        if (policy.isUnusable()) {
            return Optional.of(Diagnostic.error(ErrorCode.POLICY_CORRUPT, "", "the stored policy is unusable"));
        }
        if (policy.mode() == ExecutionPolicy.BLOCKED) {
            return Optional.of(Diagnostic.error(ErrorCode.POLICY_BLOCKED, "", "the execution policy is BLOCKED"));
        }
        return Optional.empty();
    }

    private Optional<Diagnostic> ask(ProjectApprovalRequest request) {
        ApprovalDecision decision;
        try {
            CompletionStage<ApprovalDecision> stage = channel.request(request);
            if (stage == null) {
                return Optional.of(
                        Diagnostic.error(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "the approval channel failed"));
            }
            decision = stage.toCompletableFuture().get(approvalTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return Optional.of(
                    Diagnostic.error(ErrorCode.CONSENT_TIMEOUT, "", "the approval channel did not answer in time"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(Diagnostic.error(
                    ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "interrupted while waiting for approval"));
        } catch (RuntimeException | java.util.concurrent.ExecutionException e) {
            return Optional.of(
                    Diagnostic.error(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "the approval channel failed"));
        }
        if (decision instanceof ApprovalDecision.Approved approved) {
            // An approval answers one request (decision 0760): one minted for another is refused.
            return approved.proposal().equals(request.id())
                    ? Optional.empty()
                    : Optional.of(
                            Diagnostic.error(ErrorCode.BINDING_MISMATCH, "", "the approval answers another request"));
        }
        if (decision instanceof ApprovalDecision.Denied d) {
            return Optional.of(Diagnostic.error(d.code(), "", "the project run was not approved"));
        }
        return Optional.of(Diagnostic.error(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "the approval channel failed"));
    }

    private static void settle(
            AuditTrail trail,
            ProjectRequest request,
            Revision revision,
            ProjectEnvelope envelope,
            Optional<Sha256Digest> runtime) {
        List<ErrorCode> codes = AuditEvent.Settled.boundedCodes(
                envelope.errors().stream().map(Diagnostic::code).toList());
        trail.settled(new AuditEvent.Settled(
                request.run(),
                request.agent(),
                revision,
                AuditEvent.Settled.Authority.CONSENT,
                envelope.status(),
                envelope.cleanup(),
                envelope.hardening(),
                codes,
                false,
                runtime));
    }

    private static ProjectEnvelope refused(
            ProjectRequest request,
            long start,
            Optional<Sha256Digest> plan,
            Optional<Revision> revision,
            List<Diagnostic> errors) {
        return ProjectEnvelope.refused(
                request.run(), plan, revision, errors, Duration.ofNanos(System.nanoTime() - start));
    }

    /** Revokes this gate's capability: nothing new starts through it. The admin stays open. */
    @Override
    public void close() {
        admin.revokeEngineCapability(capability);
    }

    @Override
    public String toString() {
        return "ProjectGate[" + admin.dataDirectory() + "]";
    }

    /** Configures a {@link ProjectGate}. */
    public static final class Builder {
        private SkillGateAdmin admin;
        private NodeRuntime runtime;
        private ProjectApprovalChannel channel;
        private Duration approvalTimeout = Duration.ofMinutes(5);
        private ProcessSupervisor supervisor;
        private Optional<Path> delegatedCgroup = Optional.empty();
        private Optional<Path> helperDirectory = Optional.empty();

        private Builder() {}

        /**
         * The built-in Linux supervisor extracts its helper into {@code directory} (absolute) instead
         * of {@code <data directory>/supervisor}, as {@link SkillGate.Builder#supervisorHelperDirectory}
         * does (decision 0891): for hosts that make a data directory per run. Its parent must be a
         * directory no other user could change, else the supervisor is unavailable ({@code
         * DATA_DIRECTORY_UNSAFE}); every start still verifies the open file. No effect on a supervisor
         * set with {@link #supervisor}.
         */
        public Builder supervisorHelperDirectory(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the helper directory must be an absolute path");
            }
            this.helperDirectory = Optional.of(directory.normalize());
            return this;
        }

        /**
         * A cgroup v2 directory the host delegated to the built-in Linux supervisor (decision 0543):
         * each step then lives in its own child cgroup below it, and {@code cgroup.kill} and
         * {@code populated 0} are added to its cleanup proof. Project runs ask for no cgroup limits.
         * No effect on a supervisor set with {@link #supervisor}.
         */
        public Builder delegatedCgroup(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the delegated cgroup must be an absolute path");
            }
            this.delegatedCgroup = Optional.of(directory);
            return this;
        }

        /** The admin whose data directory, policy and audit log project runs use. Required. */
        public Builder admin(SkillGateAdmin admin) {
            this.admin = Objects.requireNonNull(admin, "admin");
            return this;
        }

        /** The pinned Node runtime. Required. */
        public Builder nodeRuntime(NodeRuntime runtime) {
            this.runtime = Objects.requireNonNull(runtime, "runtime");
            return this;
        }

        /** The host's approval UI for project runs. Required. */
        public Builder approvalChannel(ProjectApprovalChannel channel) {
            this.channel = Objects.requireNonNull(channel, "channel");
            return this;
        }

        /** How long an approval may take before it is a denial ({@code CONSENT_TIMEOUT}); 5 minutes by default. */
        public Builder approvalTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the approval timeout must be positive");
            }
            this.approvalTimeout = timeout;
            return this;
        }

        /**
         * A supervisor set explicitly (it must prove cleanup); by default the built-in Linux subreaper
         * supervisor. ServiceLoader providers are not consulted for project runs.
         */
        public Builder supervisor(ProcessSupervisor supervisor) {
            this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
            return this;
        }

        /** The gate. */
        public ProjectGate build() {
            if (admin == null || runtime == null || channel == null) {
                throw new IllegalStateException("admin, runtime and approval channel are required");
            }
            return new ProjectGate(this);
        }
    }
}
