package dev.skillgate.audit;

import dev.skillgate.audit.internal.Scopes;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * What one audit record says (record schema version 1, {@code docs/audit.md}). The set is closed: a
 * record of any other type makes the log corrupt, it is never skipped.
 *
 * <p>Only {@link Approved} grants trust and only {@link Revoked} removes it; the other events are
 * evidence (consumptions, policy changes, settlements, resolutions, workflow plans, late answers). No event holds a
 * source path, a credential value, an executable path, script input or script output.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface AuditEvent {

    /**
     * Trust granted to a scope (a prompt skill's first-use approval, or an execution receipt).
     *
     * @param scope the scope
     */
    record Approved(TrustScope scope) implements AuditEvent {
        public Approved {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /**
     * Trust removed from a scope.
     *
     * @param scope the scope
     */
    record Revoked(TrustScope scope) implements AuditEvent {
        public Revoked {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /**
     * A consent grant was consumed for a launch (SPEC §8). Records that consent was used, not that
     * the script started or finished.
     *
     * @param run the run the grant belonged to
     * @param agent the agent
     * @param revision the revision the grant was bound to
     * @param binding the consent binding's digest, computed by the consent module
     */
    record Consumed(RunId run, AgentId agent, Revision revision, Sha256Digest binding) implements AuditEvent {
        public Consumed {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(binding, "binding");
        }
    }

    /**
     * The execution policy changed.
     *
     * @param mode the new mode's name, 1–64 of {@code [A-Z0-9_]} starting with a letter (e.g.
     *     {@code TRUST_SELECTED_REVISIONS})
     * @param policy SHA-256 of the stored policy document after the change
     */
    record PolicyChanged(String mode, Sha256Digest policy) implements AuditEvent {
        public PolicyChanged {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(policy, "policy");
            if (!Scopes.isModeName(mode)) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a policy mode is 1-64 of [A-Z0-9_], starting with a letter");
            }
        }
    }

    /**
     * An operator repaired a disabled log: the first record of the new log, chained to digests of the
     * old files, which are kept for forensics in the evidence directory.
     *
     * @param reason the operator's reason (1–200 characters, no control characters)
     * @param cause the error code that disabled the old log
     * @param firstBadSequence the first bad record of the old log, when one was named
     * @param previousLogId the old log's id (32 lowercase hex), when it could be read
     * @param previousLog SHA-256 of the old {@code audit.log} bytes, when it existed
     * @param previousHead SHA-256 of the old {@code audit.head} bytes, when it existed
     * @param evidence the name of the evidence directory inside the audit directory
     */
    record Repaired(
            String reason,
            ErrorCode cause,
            OptionalLong firstBadSequence,
            Optional<String> previousLogId,
            Optional<Sha256Digest> previousLog,
            Optional<Sha256Digest> previousHead,
            String evidence)
            implements AuditEvent {
        /** Longest repair reason, in characters. */
        public static final int MAX_REASON_LENGTH = 200;

        public Repaired {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(cause, "cause");
            Objects.requireNonNull(firstBadSequence, "firstBadSequence");
            Objects.requireNonNull(previousLogId, "previousLogId");
            Objects.requireNonNull(previousLog, "previousLog");
            Objects.requireNonNull(previousHead, "previousHead");
            Objects.requireNonNull(evidence, "evidence");
            Scopes.checkText(reason, MAX_REASON_LENGTH, "a repair reason");
            Scopes.checkText(evidence, 128, "an evidence directory name");
            if (previousLogId.isPresent() && !previousLogId.get().matches("[0-9a-f]{32}")) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a log id is 32 lowercase hex");
            }
            if (firstBadSequence.isPresent() && firstBadSequence.getAsLong() < 0) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a sequence number is not negative");
            }
        }
    }
    /**
     * How an authorised execution finally settled (SPEC §12): written when the runner settled — also
     * when the caller had already received an early outcome (cancel, caller deadline, close), in which
     * case this record states the real settlement and the delivered outcome stays what it was — or
     * when the execution was refused after its authorisation was used. Decisions and facts only:
     * never paths, input or output.
     *
     * @param run the run
     * @param agent the agent
     * @param revision the revision that was authorised (and, if it started, ran)
     * @param authority what authorised the launch
     * @param status the settled status
     * @param cleanup whether the end of the process tree was proven
     * @param layer the supervisor hardening layer that applied
     * @param errors the envelope's error codes in order, distinct, at most {@link #MAX_ERRORS}
     * @param earlyDelivery whether the caller received an earlier outcome than this one
     * @param runtimeSha256 the SHA-256 the runtime binary was verified against for this launch
     *     (the envelope's {@code runtimeSha256}), when a digest was pinned and the launch got that far
     * @param confinement what the kernel confined for the run, part by part (the envelope's
     *     {@code confinement}, hardening layer L2); empty in records written before it existed
     */
    record Settled(
            RunId run,
            AgentId agent,
            Revision revision,
            Authority authority,
            ExecutionStatus status,
            CleanupStatus cleanup,
            HardeningLayer layer,
            List<ErrorCode> errors,
            boolean earlyDelivery,
            Optional<Sha256Digest> runtimeSha256,
            Optional<Confinement> confinement)
            implements AuditEvent {
        /** Most error codes one record keeps. */
        public static final int MAX_ERRORS = 16;

        /** A settlement without a runtime digest (none was pinned, or the launch did not get that far). */
        public Settled(
                RunId run,
                AgentId agent,
                Revision revision,
                Authority authority,
                ExecutionStatus status,
                CleanupStatus cleanup,
                HardeningLayer layer,
                List<ErrorCode> errors,
                boolean earlyDelivery) {
            this(run, agent, revision, authority, status, cleanup, layer, errors, earlyDelivery, Optional.empty());
        }

        /** A settlement without a confinement report. */
        public Settled(
                RunId run,
                AgentId agent,
                Revision revision,
                Authority authority,
                ExecutionStatus status,
                CleanupStatus cleanup,
                HardeningLayer layer,
                List<ErrorCode> errors,
                boolean earlyDelivery,
                Optional<Sha256Digest> runtimeSha256) {
            this(
                    run,
                    agent,
                    revision,
                    authority,
                    status,
                    cleanup,
                    layer,
                    errors,
                    earlyDelivery,
                    runtimeSha256,
                    Optional.empty());
        }

        /** What authorised the launch. */
        public enum Authority {
            /** A consumed one-use consent grant (its {@link Consumed} record comes first). */
            CONSENT,
            /** A trusted-revision receipt the audit log vouched for. */
            TRUSTED_REVISION,
            /** A step of an approved workflow plan (its {@link PlanStepConsumed} record comes first). */
            WORKFLOW_STEP
        }

        public Settled {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(authority, "authority");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(cleanup, "cleanup");
            Objects.requireNonNull(layer, "layer");
            Objects.requireNonNull(runtimeSha256, "runtimeSha256");
            Objects.requireNonNull(confinement, "confinement");
            errors = List.copyOf(errors);
            if (errors.size() > MAX_ERRORS || new HashSet<>(errors).size() != errors.size()) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a settlement keeps at most " + MAX_ERRORS + " distinct codes");
            }
        }

        /** The first {@link #MAX_ERRORS} distinct codes of {@code codes}, in order. */
        public static List<ErrorCode> boundedCodes(List<ErrorCode> codes) {
            return codes.stream().distinct().limit(MAX_ERRORS).toList();
        }
    }

    /**
     * A process the staging janitor proved dead: its pid is gone, or belongs to a process with another
     * start-time token.
     *
     * @param pid the recorded pid
     * @param startToken the recorded start-time token ({@code [A-Za-z0-9._:+-]{1,128}})
     */
    record DeadProcess(long pid, String startToken) {
        /** Largest pid a record can hold (the canonical form's integer bound, 2^53 − 1). */
        public static final long MAX_PID = (1L << 53) - 1;

        public DeadProcess {
            if (pid < 1 || pid > MAX_PID) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a pid is a positive integer");
            }
            Objects.requireNonNull(startToken, "startToken");
            if (!startToken.matches("[A-Za-z0-9._:+-]{1,128}")) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a start token is 1-128 of [A-Za-z0-9._:+-]");
            }
        }
    }

    /**
     * An operator resolved an execution whose cleanup was unknown (SPEC §12): the staging janitor
     * proved every recorded owner of its retained staging directory dead, this record was committed,
     * and only then was the directory removed.
     *
     * @param run the run
     * @param revision the revision of the retained bundle as found on disk, when it could be computed
     * @param attempt the staging attempt token (32 lowercase hex; the directory's name is
     *     {@code <attempt>-<run>})
     * @param stager the process that staged the directory, proven dead
     * @param supervisor the supervisor (helper pid and start-time token) recorded as owner, proven dead
     */
    record Resolved(
            RunId run,
            Optional<Revision> revision,
            String attempt,
            DeadProcess stager,
            Optional<DeadProcess> supervisor)
            implements AuditEvent {
        public Resolved {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(attempt, "attempt");
            Objects.requireNonNull(stager, "stager");
            Objects.requireNonNull(supervisor, "supervisor");
            if (!attempt.matches("[0-9a-f]{32}")) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "an attempt is 32 lowercase hex");
            }
        }
    }

    /**
     * The human approved a host-verified workflow plan once for its run ({@code APPROVE_WORKFLOW_RUN},
     * SPEC §8). The plan itself lives only in memory; this is evidence and grants nothing.
     *
     * @param run the run the plan belongs to
     * @param agent the agent its steps run for
     * @param workspace the workspace digest ({@link ExecutionScope#workspaceDigest})
     * @param plan the plan's digest, computed by the engine
     * @param steps how many steps the plan lists (1–{@value #MAX_STEPS})
     */
    record PlanApproved(RunId run, AgentId agent, Sha256Digest workspace, Sha256Digest plan, int steps)
            implements AuditEvent {
        /** Most steps one plan lists. */
        public static final int MAX_STEPS = 64;

        public PlanApproved {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(workspace, "workspace");
            Objects.requireNonNull(plan, "plan");
            if (steps < 1 || steps > MAX_STEPS) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a plan has 1-" + MAX_STEPS + " steps");
            }
        }
    }

    /**
     * One step of an approved workflow plan was used for a launch, recorded before the launch. Like
     * {@link Consumed}, it says the authorisation was used, not that the script started.
     *
     * @param run the run
     * @param agent the agent
     * @param revision the revision the step covers
     * @param binding the launch's consent binding digest
     * @param plan the plan's digest (as in its {@link PlanApproved} record)
     * @param step the step's index in the plan (0–63)
     */
    record PlanStepConsumed(
            RunId run, AgentId agent, Revision revision, Sha256Digest binding, Sha256Digest plan, int step)
            implements AuditEvent {
        public PlanStepConsumed {
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(binding, "binding");
            Objects.requireNonNull(plan, "plan");
            if (step < 0 || step >= PlanApproved.MAX_STEPS) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a step index is 0-" + (PlanApproved.MAX_STEPS - 1));
            }
        }
    }

    /**
     * An operator-visible change to a durable workflow (decision 0686): a takeover after its owner was
     * proven dead, an operator's decision about a step whose effect was unknown, or its removal by
     * retention cleanup. Informational: it grants no trust and no consent.
     *
     * @param action what happened
     * @param workflow the workflow id (a canonical lowercase UUID)
     * @param run the workflow's run
     * @param detail what the action concerned, e.g. {@code token 2 from local/h-…} or
     *     {@code step 1 EFFECT_ABSENT} (at most 200 printable ASCII characters)
     */
    record WorkflowChanged(Action action, String workflow, RunId run, String detail) implements AuditEvent {
        /** The workflow actions that are recorded. */
        public enum Action {
            /** Another owner took the workflow over after proving the previous owner dead. */
            TAKEOVER,
            /** An operator decided a step whose effect was unknown. */
            DECIDE,
            /** Retention cleanup removed the ended workflow and its records. */
            PURGE
        }

        public WorkflowChanged {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(workflow, "workflow");
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(detail, "detail");
            if (!workflow.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a workflow id is a canonical UUID");
            }
            if (detail.length() > 200 || !detail.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a workflow detail is at most 200 printable ASCII characters");
            }
        }
    }

    /**
     * A human's answer that arrived after the engine stopped waiting for it — the approval timeout or
     * the consent window had ended, the caller had stopped the execution, or the gate had closed
     * (decision 0769). The answer was ignored: nothing was launched, activated or trusted on it. This
     * record is evidence that a human answered late, so that an operator can tell "nobody answered"
     * from "somebody approved too late"; it grants nothing.
     *
     * @param request what was asked
     * @param id the request's id: the proposal id of an execution, the id of an activation request (a
     *     canonical lowercase UUID)
     * @param agent the agent the request was for
     * @param run the run, for an execution
     * @param skill the skill's name as the request showed it
     * @param revision the revision the request showed
     * @param approved whether the late answer was an approval (else a denial)
     * @param afterMillis how long after the request was handed to the channel the answer arrived, in
     *     milliseconds (0–2^53 − 1)
     */
    record LateAnswer(
            Request request,
            String id,
            AgentId agent,
            Optional<RunId> run,
            SkillName skill,
            Revision revision,
            boolean approved,
            long afterMillis)
            implements AuditEvent {
        /** What the late answer answered. */
        public enum Request {
            /** An execution's approval request. */
            EXECUTION,
            /** A prompt skill's first-use (activation) request. */
            ACTIVATION
        }

        /** Largest {@link #afterMillis} a record holds (the canonical form's integer bound). */
        public static final long MAX_MILLIS = (1L << 53) - 1;

        public LateAnswer {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(skill, "skill");
            Objects.requireNonNull(revision, "revision");
            if (!id.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "a request id is a canonical UUID");
            }
            if (request == Request.EXECUTION && run.isEmpty()) {
                throw new InvalidValueException(ErrorCode.AUDIT_RECORD_INVALID, "an execution request names its run");
            }
            if (afterMillis < 0 || afterMillis > MAX_MILLIS) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_RECORD_INVALID, "a late answer's delay is 0-2^53-1 milliseconds");
            }
        }
    }
}
