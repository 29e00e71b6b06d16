package dev.skillgate.engine.internal;

import dev.skillgate.engine.DrainReport;
import dev.skillgate.engine.UnresolvedExecution;
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
    /** Most settled-but-unproven executions remembered in memory (the oldest are forgotten first). */
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
    static Execution register(Path dataDirectory, long gateId, RunId run, SkillName skill) {
        Execution e = new Execution(dataDirectory, gateId, run, skill);
        IN_FLIGHT.add(e);
        e.settlement().whenComplete((env, t) -> settled(e, env));
        return e;
    }

    private static void settled(Execution e, ExecutionEnvelope env) {
        IN_FLIGHT.remove(e);
        if (env != null && env.status() == ExecutionStatus.CLEANUP_UNKNOWN) {
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
                out.add(new UnresolvedExecution(
                        e.run(),
                        Optional.of(e.skill()),
                        e.revision(),
                        e.startedAt(),
                        env == null ? Optional.empty() : env.cleanup().retainedStaging(),
                        UnresolvedExecution.State.CLEANUP_UNKNOWN));
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

    /** Forgets unresolved executions of {@code run} over {@code dataDirectory} (after a proven resolution). */
    public static void forget(Path dataDirectory, RunId run) {
        synchronized (UNKNOWN) {
            UNKNOWN.removeIf(
                    e -> e.dataDirectory().equals(dataDirectory) && e.run().equals(run));
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
