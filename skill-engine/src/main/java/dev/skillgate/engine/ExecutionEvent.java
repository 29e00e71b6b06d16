package dev.skillgate.engine;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.ProgressEvent;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Progress of one execution through the engine, for a host's progress display or log.
 *
 * <p>Events carry names, codes and counts; never invocation text, output or file contents. They are
 * a progress feed, not a record: the audit log is the record of trust decisions.
 *
 * @param run the run
 * @param skill the skill
 * @param kind what happened
 * @param codes the refusal or failure codes, for {@link Kind#REFUSED}, {@link Kind#DELIVERED},
 *     {@link Kind#SETTLED} and {@link Kind#SETTLEMENT_UNRECORDED}
 * @param progress the runner's own event, for {@link Kind#PROGRESS}
 * @param authority what authorised the launch, for {@link Kind#AUTHORISED} (and only there)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ExecutionEvent(
        RunId run,
        SkillName skill,
        Kind kind,
        List<ErrorCode> codes,
        Optional<ProgressEvent> progress,
        Optional<LaunchAuthority> authority) {

    /** An event that carries no authority (every kind but {@link Kind#AUTHORISED}). */
    public ExecutionEvent(
            RunId run, SkillName skill, Kind kind, List<ErrorCode> codes, Optional<ProgressEvent> progress) {
        this(run, skill, kind, codes, progress, Optional.empty());
    }

    /** The steps an execution reports, in order; a refusal can come after any step before launch. */
    public enum Kind {
        /** The skill was captured and its input validated. */
        CAPTURED,
        /** An approval request went to the approval channel. */
        APPROVAL_REQUESTED,
        /**
         * The launch is authorised: {@link ExecutionEvent#authority()} says how (the human was asked,
         * a trusted-revision receipt, a workflow step). Before the re-checks: it may still be refused.
         */
        AUTHORISED,
        /** Re-capture and the gates were checked again; the runner starts next. */
        LAUNCHING,
        /** An event from the runner (staged, started, output bytes, terminating, settled). */
        PROGRESS,
        /** Nothing was started, and why. */
        REFUSED,
        /** The outcome was delivered to the caller. */
        DELIVERED,
        /** The runner settled (the process tree is gone, or cleanup is unknown). */
        SETTLED,
        /**
         * The settlement of an authorised execution could not be recorded in the audit log (the codes
         * say why); the execution is listed by {@link SkillGate#unresolved()} until a resolve records it.
         */
        SETTLEMENT_UNRECORDED
    }

    public ExecutionEvent {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(kind, "kind");
        codes = List.copyOf(codes);
        Objects.requireNonNull(progress, "progress");
        Objects.requireNonNull(authority, "authority");
        if (authority.isPresent() != (kind == Kind.AUTHORISED)) {
            throw new IllegalArgumentException("an authority is carried by exactly the AUTHORISED events");
        }
    }
}
