package dev.skillgate.runner;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What a {@link ProcessSupervisor} observed about one run: how it ended, the bounded output bytes,
 * and the cleanup evidence. The runner, not the supervisor, decides success (it decodes and
 * validates the output).
 *
 * @param outcome how the run ended
 * @param exit the child's own exit, when observed
 * @param stdout captured stdout, at most the limit (copied once here, and again by each call of the accessor:
 *     the SPI's defensive copies; a supervisor should capture into one buffer of exactly the limit and hand
 *     that buffer over, so the output costs the JVM at most twice the limit before the runner reads it)
 * @param stderr captured stderr, at most the limit (copied, as stdout)
 * @param cleanup what was observed about the end of the tree
 * @param hardening the hardening layer that applied
 * @param elapsed monotonic time from spawn to the end of cleanup
 * @param detail a short, input-free explanation for failures (errno names, protocol faults); empty when none.
 *     For {@code SETUP_FAILED}, {@code SPAWN_FAILED} and {@code SUPERVISOR_FAILED} it may start with an
 *     {@link dev.skillgate.model.ErrorCode} name of the RUNTIME, STAGING, EXECUTION or SUPERVISION group
 *     followed by {@code ':'} (e.g. {@code "RUNTIME_MISMATCH: digest differs"}); the runner then reports
 *     that code instead of its generic one
 * @param confinement what the kernel confined for this run, part by part (hardening layer L2)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SupervisionResult(
        Outcome outcome,
        ProcessExit exit,
        byte[] stdout,
        byte[] stderr,
        CleanupEvidence cleanup,
        HardeningLayer hardening,
        Duration elapsed,
        String detail,
        Confinement confinement) {

    /** How a supervised run ended. */
    public enum Outcome {
        /** The child exited by itself (any code). */
        EXITED,
        /** The child was ended by a signal it did not get from the supervisor. */
        SIGNALED,
        /** The wall deadline passed. */
        TIMED_OUT,
        /** The run was cancelled (by the caller, or because the JVM lifeline closed). */
        CANCELLED,
        /** stdout exceeded its limit. */
        STDOUT_LIMIT,
        /** stderr exceeded its limit. */
        STDERR_LIMIT,
        /** The executable could not be started (exec failed; no child code ran). */
        SPAWN_FAILED,
        /** The supervisor refused before spawning (bad request, digest mismatch, required hardening missing). */
        SETUP_FAILED,
        /** The supervisor itself failed or vanished; nothing it says about cleanup can be trusted. */
        SUPERVISOR_FAILED
    }

    /**
     * Cleanup evidence.
     *
     * @param proven true only on positive evidence that no descendant remains
     * @param descendantsSeen processes of the tree the supervisor observed, the child included
     * @param detachedSeen whether any descendant outlived the child or left its session/process group
     * @param proof how it was proven, e.g. {@code ECHILD}; {@code NONE} when not proven
     */
    public record CleanupEvidence(boolean proven, int descendantsSeen, boolean detachedSeen, String proof) {
        public CleanupEvidence {
            Objects.requireNonNull(proof, "proof");
            if (descendantsSeen < 0) {
                throw new IllegalArgumentException("descendantsSeen must not be negative");
            }
            if (proven == proof.equals("NONE")) {
                throw new IllegalArgumentException("proof must be NONE exactly when cleanup is not proven");
            }
        }

        /** Nothing started, so nothing needed cleaning (setup and spawn failures). */
        public static CleanupEvidence nothingStarted() {
            return new CleanupEvidence(true, 0, false, "NOTHING_STARTED");
        }

        /** Cleanup could not be proven. */
        public static CleanupEvidence unproven(int descendantsSeen, boolean detachedSeen) {
            return new CleanupEvidence(false, descendantsSeen, detachedSeen, "NONE");
        }
    }

    /** A result without kernel confinement ({@link Confinement#NONE}). */
    public SupervisionResult(
            Outcome outcome,
            ProcessExit exit,
            byte[] stdout,
            byte[] stderr,
            CleanupEvidence cleanup,
            HardeningLayer hardening,
            Duration elapsed,
            String detail) {
        this(outcome, exit, stdout, stderr, cleanup, hardening, elapsed, detail, Confinement.NONE);
    }

    public SupervisionResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(exit, "exit");
        stdout = Objects.requireNonNull(stdout, "stdout").clone();
        stderr = Objects.requireNonNull(stderr, "stderr").clone();
        Objects.requireNonNull(cleanup, "cleanup");
        Objects.requireNonNull(hardening, "hardening");
        Objects.requireNonNull(elapsed, "elapsed");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(confinement, "confinement");
        if (outcome == Outcome.SUPERVISOR_FAILED && cleanup.proven()) {
            throw new IllegalArgumentException("a failed supervisor proves nothing");
        }
    }

    /** A copy of the captured stdout. */
    @Override
    public byte[] stdout() {
        return stdout.clone();
    }

    /** A copy of the captured stderr. */
    @Override
    public byte[] stderr() {
        return stderr.clone();
    }

    /** Captured stdout length, without copying. */
    public int stdoutSize() {
        return stdout.length;
    }

    /** Captured stderr length, without copying. */
    public int stderrSize() {
        return stderr.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SupervisionResult r
                && outcome == r.outcome
                && exit.equals(r.exit)
                && Arrays.equals(stdout, r.stdout)
                && Arrays.equals(stderr, r.stderr)
                && cleanup.equals(r.cleanup)
                && hardening == r.hardening
                && elapsed.equals(r.elapsed)
                && detail.equals(r.detail)
                && confinement.equals(r.confinement);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, exit, Arrays.hashCode(stdout), cleanup, hardening);
    }

    @Override
    public String toString() {
        // Never prints output contents.
        return "SupervisionResult[" + outcome + ", exit=" + exit + ", stdout=" + stdout.length + "B, stderr="
                + stderr.length + "B, cleanup=" + cleanup + ", hardening=" + hardening + ", confinement=" + confinement
                + "]";
    }
}
