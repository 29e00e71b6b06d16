package dev.skillgate.engine.internal;

import dev.skillgate.engine.DrainReport;
import dev.skillgate.engine.UnresolvedExecution;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The process-wide registry of in-flight executions (SPEC §12, settlement): every execution is
 * registered before anything else happens and stays until the runner settles, however early its
 * outcome was delivered. Executions that settled without proven cleanup are kept (at most
 * {@value #MAX_UNKNOWN}) for {@code unresolved()}.
 *
 * <p>Static on purpose: a caller that lost interest, or a {@code SkillGate} that was dropped without
 * closing, does not make an execution disappear from the process's view.
 */
public final class Settlements {
    /**
     * Most settled executions remembered in memory for {@code unresolved()} — cleanup unproven, or the
     * settlement record not committed — (the oldest are forgotten first).
     */
    static final int MAX_UNKNOWN = 256;

    private static final Set<Execution> IN_FLIGHT = ConcurrentHashMap.newKeySet();
    private static final Deque<Execution> UNKNOWN = new ArrayDeque<>();
    private static final ScheduledExecutorService TIMERS = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "skillgate-caller-deadlines");
        t.setDaemon(true);
        return t;
    });

    private Settlements() {}

    /** Registers a new execution. */
    static Execution register(Path dataDirectory, long gateId, RunId run, AgentId agent, SkillName skill) {
        Execution e = new Execution(dataDirectory, gateId, run, agent, skill);
        IN_FLIGHT.add(e);
        return e;
    }

    /** Called once by {@link Execution#settle} before the settlement completes. */
    static void settled(Execution e, ExecutionEnvelope env) {
        IN_FLIGHT.remove(e);
        boolean unknown = env != null && env.status() == ExecutionStatus.CLEANUP_UNKNOWN;
        if (unknown || e.unrecordedSettlement().isPresent()) {
            synchronized (UNKNOWN) {
                UNKNOWN.addLast(e);
                while (UNKNOWN.size() > MAX_UNKNOWN) {
                    UNKNOWN.removeFirst();
                }
            }
        }
    }

    /** Stops {@code e} with {@link Execution.Cause#CALLER_DEADLINE} after {@code deadline}. */
    static void scheduleDeadline(Execution e, Duration deadline) {
        var timer = TIMERS.schedule(
                () -> e.stop(Execution.Cause.CALLER_DEADLINE), deadline.toNanos(), TimeUnit.NANOSECONDS);
        e.outcome().whenComplete((env, t) -> timer.cancel(false));
    }

    /** Executions of {@code gateId} that have not settled. */
    public static List<Execution> inFlight(long gateId) {
        List<Execution> out = new ArrayList<>();
        for (Execution e : IN_FLIGHT) {
            if (e.gateId() == gateId) {
                out.add(e);
            }
        }
        return out;
    }

    /** How many executions of the whole process have not settled. */
    public static int inFlightCount() {
        return IN_FLIGHT.size();
    }

    /** Executions over {@code dataDirectory} whose cleanup is not (yet) proven, oldest first. */
    public static List<UnresolvedExecution> unresolved(Path dataDirectory) {
        List<UnresolvedExecution> out = new ArrayList<>();
        synchronized (UNKNOWN) {
            for (Execution e : UNKNOWN) {
                if (!e.dataDirectory().equals(dataDirectory)) {
                    continue;
                }
                ExecutionEnvelope env = e.settlement().getNow(null);
                boolean unknown = env != null && env.status() == ExecutionStatus.CLEANUP_UNKNOWN;
                out.add(new UnresolvedExecution(
                        e.run(),
                        Optional.of(e.skill()),
                        e.revision(),
                        e.startedAt(),
                        env == null ? Optional.empty() : env.cleanup().retainedStaging(),
                        unknown
                                ? UnresolvedExecution.State.CLEANUP_UNKNOWN
                                : UnresolvedExecution.State.SETTLEMENT_UNRECORDED));
            }
        }
        for (Execution e : IN_FLIGHT) {
            if (e.dataDirectory().equals(dataDirectory) && e.outcome().isDone() && e.launched()) {
                out.add(new UnresolvedExecution(
                        e.run(),
                        Optional.of(e.skill()),
                        e.revision(),
                        e.startedAt(),
                        Optional.empty(),
                        UnresolvedExecution.State.SETTLING));
            }
        }
        out.sort((a, b) -> a.time().compareTo(b.time()));
        return out;
    }

    /** Remembered executions of {@code run} over {@code dataDirectory} (cleanup unknown or settlement unrecorded). */
    public static List<Execution> remembered(Path dataDirectory, RunId run) {
        synchronized (UNKNOWN) {
            List<Execution> out = new ArrayList<>();
            for (Execution e : UNKNOWN) {
                if (e.dataDirectory().equals(dataDirectory) && e.run().equals(run)) {
                    out.add(e);
                }
            }
            return out;
        }
    }

    /**
     * Forgets {@code e} once nothing about it is unresolved any more: its settlement record is
     * committed and its cleanup was proven. An execution of this process whose cleanup is unknown is
     * never forgotten here: this process staged it and is alive, so its owner cannot be proven dead.
     */
    public static void forgetIfResolved(Execution e) {
        ExecutionEnvelope env = e.settlement().getNow(null);
        boolean unknown = env == null || env.status() == ExecutionStatus.CLEANUP_UNKNOWN;
        if (!unknown && e.unrecordedSettlement().isEmpty()) {
            synchronized (UNKNOWN) {
                UNKNOWN.remove(e);
            }
        }
    }

    /**
     * Stops every in-flight execution of {@code gateId} and waits for them to settle, each at most
     * until its own settle deadline and all together at most {@code maxWait}.
     */
    public static DrainReport drain(long gateId, Duration maxWait) {
        long start = System.nanoTime();
        long overall = start + maxWait.toNanos();
        List<Execution> executions = inFlight(gateId);
        for (Execution e : executions) {
            e.stop(Execution.Cause.CLOSE);
        }
        int settled = 0;
        List<RunId> unsettled = new ArrayList<>();
        for (Execution e : executions) {
            long until = Math.min(overall, e.settleDeadlineNanos());
            long wait = Math.max(0, until - System.nanoTime());
            try {
                e.settlement().get(wait, TimeUnit.NANOSECONDS);
                settled++;
            } catch (TimeoutException ex) {
                unsettled.add(e.run());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                unsettled.add(e.run());
            } catch (java.util.concurrent.ExecutionException ex) {
                unsettled.add(e.run());
            }
        }
        return new DrainReport(executions.size(), settled, unsettled, Duration.ofNanos(System.nanoTime() - start));
    }
}
