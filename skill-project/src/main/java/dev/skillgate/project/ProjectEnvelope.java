package dev.skillgate.project;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of one project run: the status, the plan it ran under, each step's result in order, the
 * errors, and whether the end of every process tree was proven. {@code SUCCEEDED} only when every step
 * exited 0 without a detached descendant and every cleanup was proven; a step that did not run has no
 * result. Generated tests and test counts are untrusted evidence, never adequacy proof.
 *
 * @param run the run
 * @param status how the run ended
 * @param plan the approved plan's digest, when there was one
 * @param revision the snapshot's revision, when inspected
 * @param steps the results of the steps that ran
 * @param errors why the run did not succeed (and {@code STAGING_RETAINED} when staging was kept)
 * @param cleanup {@code PROVEN} when every started tree was proven gone, {@code NOT_STARTED} when nothing started
 * @param hardening the supervisor's hardening layer
 * @param retainedStaging the staging directory when it was kept (cleanup not proven)
 * @param elapsed the whole run's time
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectEnvelope(
        RunId run,
        ExecutionStatus status,
        Optional<Sha256Digest> plan,
        Optional<Revision> revision,
        List<StepResult> steps,
        List<Diagnostic> errors,
        CleanupStatus cleanup,
        HardeningLayer hardening,
        Optional<Path> retainedStaging,
        Duration elapsed) {
    public ProjectEnvelope {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(revision, "revision");
        steps = List.copyOf(steps);
        errors = List.copyOf(errors);
        Objects.requireNonNull(cleanup, "cleanup");
        Objects.requireNonNull(hardening, "hardening");
        Objects.requireNonNull(retainedStaging, "retainedStaging");
        Objects.requireNonNull(elapsed, "elapsed");
        if (status == ExecutionStatus.SUCCEEDED
                && (!errors.stream().noneMatch(Diagnostic::isError) || cleanup != CleanupStatus.PROVEN)) {
            throw new IllegalArgumentException("a success has no errors and proven cleanup");
        }
    }

    /** A refusal before anything started. */
    public static ProjectEnvelope refused(
            RunId run,
            Optional<Sha256Digest> plan,
            Optional<Revision> revision,
            List<Diagnostic> errors,
            Duration elapsed) {
        return new ProjectEnvelope(
                run,
                ExecutionStatus.REFUSED,
                plan,
                revision,
                List.of(),
                errors,
                CleanupStatus.NOT_STARTED,
                HardeningLayer.NONE,
                Optional.empty(),
                elapsed);
    }

    /** Whether the run succeeded. */
    public boolean succeeded() {
        return status == ExecutionStatus.SUCCEEDED;
    }

    /** The result of the step for {@code script}, if it ran. */
    public Optional<StepResult> step(String script) {
        return steps.stream().filter(s -> s.script().equals(script)).findFirst();
    }
}
