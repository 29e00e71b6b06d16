package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Late answers (decision 0769): a human's answer that arrives after the engine stopped waiting for it
 * — the approval timeout or the consent window ended, the caller stopped the execution, or the gate
 * closed — is ignored (nothing is launched, activated or trusted on it) and recorded in the audit log
 * as an {@link AuditEvent.LateAnswer}.
 *
 * <p>One {@link Watch} per request: it sits between the fail-closed wrapper and the host's channel and
 * sees every decision the host's stage completes with, before the wrapper does. The engine ends the
 * watch once, saying which decision it acted on; any host decision that is not that one — whether it
 * came before the engine woke up or after — is late. Records are written on one daemon thread with a
 * bounded queue ({@value #MAX_QUEUED}); a record that cannot be queued or committed is logged, never
 * thrown, and changes no outcome. Not API.
 */
final class LateAnswers {
    /** Most late-answer records waiting to be written; beyond that they are logged and dropped. */
    static final int MAX_QUEUED = 256;

    private static final ThreadPoolExecutor WRITER =
            new ThreadPoolExecutor(0, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MAX_QUEUED), r -> {
                Thread t = new Thread(r, "skillgate-late-answers");
                t.setDaemon(true);
                return t;
            });

    private final Trail trail;
    private final AtomicBoolean unrecordedLogged = new AtomicBoolean();

    LateAnswers(Trail trail) {
        this.trail = trail;
    }

    /** A watch over one execution request. */
    Watch execution(ApprovalRequest r) {
        return new Watch(
                AuditEvent.LateAnswer.Request.EXECUTION,
                r.proposal().toString(),
                r.agent(),
                Optional.of(r.run()),
                r.skill(),
                r.artifact().revision());
    }

    /** A watch over one activation request. */
    Watch activation(ActivationApprovalRequest r) {
        return new Watch(
                AuditEvent.LateAnswer.Request.ACTIVATION,
                r.id().toString(),
                r.agent(),
                Optional.empty(),
                r.skill(),
                r.revision());
    }

    /** The host's answer to one request, as it arrives, and whether the engine still waited for it. */
    final class Watch {
        private final AuditEvent.LateAnswer.Request kind;
        private final String id;
        private final AgentId agent;
        private final Optional<RunId> run;
        private final SkillName skill;
        private final Revision revision;
        private final long askedNanos = System.nanoTime();
        private ApprovalDecision arrived; // guarded by this; the host's first decision
        private long arrivedNanos; // guarded by this
        private boolean ended; // guarded by this
        private boolean late; // guarded by this: the engine ended without acting on the host's decision

        private Watch(
                AuditEvent.LateAnswer.Request kind,
                String id,
                AgentId agent,
                Optional<RunId> run,
                SkillName skill,
                Revision revision) {
            this.kind = kind;
            this.id = id;
            this.agent = agent;
            this.run = run;
            this.skill = skill;
            this.revision = revision;
        }

        /**
         * {@code host} with every decision passing through this watch first: the returned stage completes
         * only after the watch saw the decision (so the engine can never act on one the watch missed).
         */
        ApprovalChannel observing(ApprovalChannel host) {
            return new ApprovalChannel() {
                @Override
                public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
                    return watched(host.request(request));
                }

                @Override
                public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
                    return watched(host.requestActivation(request));
                }
            };
        }

        private CompletionStage<ApprovalDecision> watched(CompletionStage<ApprovalDecision> stage) {
            if (stage == null) {
                // What the fail-closed wrapper makes of a missing stage.
                return CompletableFuture.completedFuture(new ApprovalDecision.Denied(
                        ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the approval channel returned no answer"));
            }
            return stage.thenApply(d -> {
                if (d != null) {
                    arrived(d);
                }
                return d;
            });
        }

        private void arrived(ApprovalDecision d) {
            boolean report;
            synchronized (this) {
                if (arrived != null) {
                    return;
                }
                arrived = d;
                arrivedNanos = System.nanoTime();
                report = late;
            }
            if (report) {
                record();
            }
        }

        /**
         * The engine stopped waiting. {@code acted} is the decision it acted on (empty when it acted on
         * none: a timeout, a stop, a close); a host decision that is not that very one is late.
         */
        void end(Optional<ApprovalDecision> acted) {
            boolean report;
            synchronized (this) {
                if (ended) {
                    return;
                }
                ended = true;
                late = acted.isEmpty() || acted.get() != arrived;
                report = late && arrived != null;
            }
            if (report) {
                record();
            }
        }

        private void record() {
            AuditEvent.LateAnswer event;
            synchronized (this) {
                event = new AuditEvent.LateAnswer(
                        kind,
                        id,
                        agent,
                        run,
                        skill,
                        revision,
                        arrived.isApproval(),
                        Math.max(0, TimeUnit.NANOSECONDS.toMillis(arrivedNanos - askedNanos)));
            }
            EngineLog.LOG.log(
                    System.Logger.Level.WARNING,
                    "skillgate: a late {0} to request {1} was ignored; it is recorded in the audit log",
                    event.approved() ? "approval" : "denial",
                    id);
            try {
                WRITER.execute(() -> write(event));
            } catch (RejectedExecutionException e) {
                unrecorded("too many late answers are waiting to be recorded");
            }
        }

        private void write(AuditEvent.LateAnswer event) {
            Optional<Diagnostic> problem;
            try {
                problem = trail.lateAnswer(event);
            } catch (RuntimeException e) {
                problem = Optional.of(
                        Diagnostic.error(ErrorCode.AUDIT_IO, "", e.getClass().getSimpleName()));
            }
            problem.ifPresent(p -> unrecorded(p.code() + ": " + p.message()));
        }
    }

    /** Logs, once per gate, that a late answer could not be recorded. */
    private void unrecorded(String why) {
        if (unrecordedLogged.compareAndSet(false, true)) {
            EngineLog.LOG.log(System.Logger.Level.WARNING, "skillgate: a late answer could not be recorded ({0})", why);
        }
    }
}
