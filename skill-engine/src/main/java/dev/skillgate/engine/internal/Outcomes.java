package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import java.util.List;
import java.util.Optional;

/**
 * How an execution ends: refused before its launch, stopped by its caller, or settled with the
 * runner's envelope — each with its settlement record in the audit log when it was authorised, and
 * the registry told in every case. Thread-safe. Not API.
 */
final class Outcomes {
    private final EngineCore.Config config;
    private final Listeners listeners;

    Outcomes(EngineCore.Config config, Listeners listeners) {
        this.config = config;
        this.listeners = listeners;
    }

    /** True when {@code e} was stopped by its caller; it is then settled with the refusal it got. */
    boolean stoppedBeforeLaunch(Execution e) {
        if (e.stopped().isEmpty()) {
            return false;
        }
        // stop() delivered a refusal already; the settlement is the same refusal.
        settle(e, e.outcome().join());
        return true;
    }

    void refuse(Execution e, ErrorCode code, String message) {
        refuse(e, List.of(Diagnostic.error(code, "", message)));
    }

    void refuse(Execution e, List<Diagnostic> errors) {
        ExecutionEnvelope env = ExecutionEnvelope.refused(e.run(), e.revision(), e.elapsed(), errors);
        listeners.emit(e, ExecutionEvent.Kind.REFUSED, env.errorCodes(), Optional.empty());
        settle(e, env);
    }

    /**
     * Settles {@code e}. An authorised execution first gets its settlement record in the audit log —
     * the real settlement, even when the caller already received an early outcome. The run already
     * happened, so a record that cannot be committed changes no outcome: it is reported to the
     * listener ({@code SETTLEMENT_UNRECORDED}) and kept for {@code unresolved()} and a later resolve.
     */
    void settle(Execution e, ExecutionEnvelope env) {
        try {
            Optional<AuditEvent.Settled> record = e.settlementRecord(env);
            if (record.isPresent()) {
                Optional<Diagnostic> problem;
                try {
                    problem = config.trail().settled(record.get());
                } catch (RuntimeException ex) {
                    problem = Optional.of(Diagnostic.error(
                            ErrorCode.AUDIT_IO,
                            "",
                            "the settlement record failed (" + ex.getClass().getSimpleName() + ")"));
                }
                if (problem.isPresent()) {
                    e.unrecorded(record.get());
                    listeners.emit(
                            e,
                            ExecutionEvent.Kind.SETTLEMENT_UNRECORDED,
                            List.of(problem.get().code()),
                            Optional.empty());
                }
            }
            Optional<WorkflowPlans.StepUse> step = e.workflowStep();
            if (step.isPresent()) {
                try {
                    config.plans().stepSettled(step.get(), env);
                } catch (RuntimeException ex) {
                    // not recorded: recovery shows the step's effect as unknown
                }
            }
        } finally {
            // Whatever happened to the record, the registry must learn that the run settled.
            e.settle(env);
        }
    }

    /** The envelope of a runner that ended without one: nothing proven. */
    static ExecutionEnvelope runnerFailed(Execution e) {
        return new ExecutionEnvelope(
                ExecutionStatus.CLEANUP_UNKNOWN,
                e.run(),
                e.revision(),
                Optional.empty(),
                e.elapsed(),
                ProcessExit.notObserved(),
                Optional.empty(),
                List.of(
                        Diagnostic.error(ErrorCode.SUPERVISOR_DIED, "", "the runner failed without an envelope"),
                        Diagnostic.error(ErrorCode.CLEANUP_UNKNOWN, "", "cleanup was not proven")),
                CleanupReport.unknown(0, false, Optional.empty()),
                HardeningLayer.NONE);
    }
}
