package dev.skillgate.engine;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.HardeningLayer;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Which process supervisor a {@link SkillGate} uses, and why — or why it has none. A report only:
 * it holds no supervisor object, so nothing reachable from it can start a process.
 *
 * <p>Chosen once, at the first execution, by these rules: a supervisor set explicitly on the
 * builder wins; otherwise one named on the builder is looked up among the candidates (the built-in
 * Linux subreaper supervisor and every {@link java.util.ServiceLoader} provider of
 * {@code dev.skillgate.runner.ProcessSupervisor}); otherwise exactly one available supervisor that
 * proves cleanup is used, and several are a configuration error — load order never decides
 * ({@code SUPERVISOR_AMBIGUOUS}); with none, the portable supervisor is used only if the host opted
 * in to unproven cleanup, else every execution is refused with
 * {@code PROCESS_OWNERSHIP_UNSUPPORTED}. A candidate that reports itself tampered with (its
 * capabilities' detail starts with {@code SUPERVISOR_TAMPERED:}, e.g. a modified helper binary)
 * refuses every execution with {@code SUPERVISOR_TAMPERED}, opt-in or not: a changed supervisor is an
 * attack, never a reason to fall back to another one. No supervisor confines a script: every one runs it with the
 * host user's files and network.
 *
 * @param name the chosen supervisor's name, or {@code none}
 * @param available whether executions can be launched at all
 * @param provesCleanup whether the supervisor can prove cleanup (so runs can succeed)
 * @param hardening the hardening layer its runs get (the envelope reports what actually applied)
 * @param unprovenCleanupAccepted whether the host opted in to unproven cleanup
 * @param problems why there is no supervisor (empty when there is one)
 * @param explanation a short, input-free account of the choice
 * @param confinement which parts of kernel confinement (L2) its launches get when they ask for them;
 *     the approval request lists them, and the launch requires them
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SupervisorSelection(
        String name,
        boolean available,
        boolean provesCleanup,
        HardeningLayer hardening,
        boolean unprovenCleanupAccepted,
        List<Diagnostic> problems,
        String explanation,
        Confinement confinement) {

    /** A selection whose supervisor offers no part of kernel confinement. */
    public SupervisorSelection(
            String name,
            boolean available,
            boolean provesCleanup,
            HardeningLayer hardening,
            boolean unprovenCleanupAccepted,
            List<Diagnostic> problems,
            String explanation) {
        this(
                name,
                available,
                provesCleanup,
                hardening,
                unprovenCleanupAccepted,
                problems,
                explanation,
                Confinement.UNAVAILABLE);
    }

    public SupervisorSelection {
        Objects.requireNonNull(confinement, "confinement");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(hardening, "hardening");
        problems = List.copyOf(problems);
        Objects.requireNonNull(explanation, "explanation");
        if (available != problems.isEmpty()) {
            throw new IllegalArgumentException("a selection is available exactly when it has no problems");
        }
        if (!available && provesCleanup) {
            throw new IllegalArgumentException("no supervisor proves nothing");
        }
    }
}
