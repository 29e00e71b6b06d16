package dev.skillgate.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The complete, checked outcome of one execution (SPEC §10).
 *
 * <p>Invariants enforced on construction, so no code path can build a misleading envelope:
 * <ul>
 *   <li>{@link ExecutionStatus#SUCCEEDED} needs exit code 0, cleanup {@link CleanupStatus#PROVEN},
 *       no detached descendant, validated output present and no error-severity diagnostic (a
 *       warning such as {@code STAGING_RETAINED} may accompany a success);
 *   <li>every other status carries no output and at least one error;
 *   <li>a retained staging directory is always accompanied by a {@code STAGING_RETAINED}
 *       diagnostic, whatever the status;
 *   <li>a runtime digest is only reported together with a runtime version.
 *   <li>{@link ExecutionStatus#REFUSED} means nothing started: cleanup {@code NOT_STARTED};
 *   <li>cleanup {@link CleanupStatus#UNKNOWN} always means status {@link ExecutionStatus#CLEANUP_UNKNOWN}
 *       (the underlying cause stays in {@link #errors()}), and vice versa.
 * </ul>
 * Errors are structured diagnostics (codes, pointers); they never echo raw script output.
 *
 * @param status how the execution ended
 * @param runId the run it belonged to
 * @param revision the revision that was (or would have been) run, when known
 * @param runtimeVersion the verified runtime version, when verification got that far
 * @param elapsed monotonic time from the start of the execution call to the envelope
 * @param exit the script's own exit, when observed
 * @param output the validated result JSON text, on success only
 * @param errors why it did not succeed, errors first, then warnings (on success: warnings only,
 *     usually none)
 * @param cleanup what was observed about the end of the process tree
 * @param hardening which supervisor hardening layer applied
 * @param runtimeSha256 the SHA-256 the runtime binary was verified against before this launch, when
 *     one was pinned and the launch got that far (the Linux supervisor checks it on the very file
 *     descriptor it executes); empty when no digest was pinned
 * @param confinement what the kernel confined for this run, part by part (hardening layer L2);
 *     {@link Confinement#NONE} for a refusal
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record ExecutionEnvelope(
        ExecutionStatus status,
        RunId runId,
        Optional<Revision> revision,
        Optional<String> runtimeVersion,
        Duration elapsed,
        ProcessExit exit,
        Optional<String> output,
        List<Diagnostic> errors,
        CleanupReport cleanup,
        HardeningLayer hardening,
        Optional<Sha256Digest> runtimeSha256,
        Confinement confinement) {

    /** An envelope without kernel confinement ({@link Confinement#NONE}). */
    public ExecutionEnvelope(
            ExecutionStatus status,
            RunId runId,
            Optional<Revision> revision,
            Optional<String> runtimeVersion,
            Duration elapsed,
            ProcessExit exit,
            Optional<String> output,
            List<Diagnostic> errors,
            CleanupReport cleanup,
            HardeningLayer hardening,
            Optional<Sha256Digest> runtimeSha256) {
        this(
                status,
                runId,
                revision,
                runtimeVersion,
                elapsed,
                exit,
                output,
                errors,
                cleanup,
                hardening,
                runtimeSha256,
                Confinement.NONE);
    }

    /** An envelope without a runtime digest (no digest was pinned, or the launch did not get that far). */
    public ExecutionEnvelope(
            ExecutionStatus status,
            RunId runId,
            Optional<Revision> revision,
            Optional<String> runtimeVersion,
            Duration elapsed,
            ProcessExit exit,
            Optional<String> output,
            List<Diagnostic> errors,
            CleanupReport cleanup,
            HardeningLayer hardening) {
        this(
                status,
                runId,
                revision,
                runtimeVersion,
                elapsed,
                exit,
                output,
                errors,
                cleanup,
                hardening,
                Optional.empty());
    }

    public ExecutionEnvelope {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(runtimeVersion, "runtimeVersion");
        Objects.requireNonNull(elapsed, "elapsed");
        Objects.requireNonNull(exit, "exit");
        Objects.requireNonNull(output, "output");
        errors = List.copyOf(errors);
        Objects.requireNonNull(cleanup, "cleanup");
        Objects.requireNonNull(hardening, "hardening");
        Objects.requireNonNull(runtimeSha256, "runtimeSha256");
        Objects.requireNonNull(confinement, "confinement");
        if (cleanup.retainedStaging().isPresent()
                && errors.stream().noneMatch(d -> d.code() == ErrorCode.STAGING_RETAINED)) {
            throw new IllegalArgumentException("a retained staging directory is reported with STAGING_RETAINED");
        }
        if (runtimeSha256.isPresent() && runtimeVersion.isEmpty()) {
            throw new IllegalArgumentException("a runtime digest is reported together with the runtime version");
        }
        if (elapsed.isNegative()) {
            throw new IllegalArgumentException("elapsed must not be negative");
        }
        if (status == ExecutionStatus.SUCCEEDED) {
            if (!exit.isSuccess()
                    || cleanup.status() != CleanupStatus.PROVEN
                    || cleanup.detachedSeen()
                    || output.isEmpty()
                    || errors.stream().anyMatch(Diagnostic::isError)
                    || revision.isEmpty()) {
                throw new IllegalArgumentException(
                        "success needs exit 0, proven cleanup, no detached descendants, output, a revision and no"
                                + " errors (warnings are allowed)");
            }
        } else {
            if (output.isPresent()) {
                throw new IllegalArgumentException("only a success carries output");
            }
            if (errors.stream().noneMatch(Diagnostic::isError)) {
                throw new IllegalArgumentException("a non-success needs at least one error");
            }
        }
        if (status == ExecutionStatus.REFUSED && cleanup.status() != CleanupStatus.NOT_STARTED) {
            throw new IllegalArgumentException("a refusal started nothing");
        }
        if (status != ExecutionStatus.REFUSED && cleanup.status() == CleanupStatus.NOT_STARTED) {
            throw new IllegalArgumentException("only a refusal has nothing started");
        }
        if ((status == ExecutionStatus.CLEANUP_UNKNOWN) != (cleanup.status() == CleanupStatus.UNKNOWN)) {
            throw new IllegalArgumentException("CLEANUP_UNKNOWN status and UNKNOWN cleanup go together");
        }
    }

    /** A refusal: nothing was started. */
    public static ExecutionEnvelope refused(
            RunId runId, Optional<Revision> revision, Duration elapsed, List<Diagnostic> errors) {
        return new ExecutionEnvelope(
                ExecutionStatus.REFUSED,
                runId,
                revision,
                Optional.empty(),
                elapsed,
                ProcessExit.notObserved(),
                Optional.empty(),
                errors,
                CleanupReport.notStarted(),
                HardeningLayer.NONE);
    }

    /** Whether the execution succeeded. */
    public boolean succeeded() {
        return status == ExecutionStatus.SUCCEEDED;
    }

    /** The error codes, in order. */
    public List<ErrorCode> errorCodes() {
        return errors.stream().map(Diagnostic::code).toList();
    }
}
