package dev.skillgate.project;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.SupervisionResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What one step did, as the supervisor observed it: how it ended, its exit, its bounded output (decoded
 * leniently: it is evidence, not a result), the test counts it printed and the cleanup evidence.
 *
 * @param script the script's name
 * @param argv the exact argv that was started
 * @param outcome how the run ended
 * @param exit the process's own exit
 * @param stdout captured stdout, at most {@link ProjectLimits#STDOUT_BYTES}
 * @param stderr captured stderr, at most {@link ProjectLimits#STDERR_BYTES}
 * @param tests the test counts Node's reporter printed, for test steps, when present (never proof)
 * @param cleanupProven whether the supervisor proved that no descendant remains
 * @param detachedSeen whether a descendant detached (the step failed then, even after proven cleanup)
 * @param proof how cleanup was proven ({@code ECHILD}) or {@code NONE}
 * @param elapsed the step's time from spawn to the end of its cleanup
 * @param errors why the step did not succeed; empty on success
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record StepResult(
        String script,
        List<String> argv,
        SupervisionResult.Outcome outcome,
        ProcessExit exit,
        String stdout,
        String stderr,
        Optional<TestSummary> tests,
        boolean cleanupProven,
        boolean detachedSeen,
        String proof,
        Duration elapsed,
        List<Diagnostic> errors) {
    public StepResult {
        Objects.requireNonNull(script, "script");
        argv = List.copyOf(argv);
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(exit, "exit");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(tests, "tests");
        Objects.requireNonNull(proof, "proof");
        Objects.requireNonNull(elapsed, "elapsed");
        errors = List.copyOf(errors);
    }

    /** Whether the step exited 0 with proven cleanup and no detached descendant. */
    public boolean succeeded() {
        return errors.isEmpty();
    }
}
