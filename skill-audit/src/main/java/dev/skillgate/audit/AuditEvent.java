package dev.skillgate.audit;

import dev.skillgate.audit.internal.Scopes;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one audit record says (record schema version 1, {@code docs/audit.md}). The set is closed: a
 * record of any other type makes the log corrupt, it is never skipped.
 *
 * <p>Only {@link Approved} grants trust and only {@link Revoked} removes it; the other events are
 * evidence. No event holds a source path, a credential value or an executable path.
 */
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
}
