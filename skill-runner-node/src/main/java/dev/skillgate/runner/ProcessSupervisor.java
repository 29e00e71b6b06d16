package dev.skillgate.runner;

import org.apiguardian.api.API;

/**
 * Service-provider interface: starts one process described by a {@link LaunchSpec}, streams its
 * output within bounds, enforces its deadline, terminates its whole tree at the end and reports
 * what it observed about cleanup.
 *
 * <p>Implementations are loaded with {@link java.util.ServiceLoader} or set explicitly on the
 * engine's builder. A supervisor must:
 * <ul>
 *   <li>start exactly {@link LaunchSpec#executable()} with exactly {@link LaunchSpec#arguments()}
 *       (no shell, no {@code PATH} lookup), in {@link LaunchSpec#workingDirectory()}, with exactly
 *       {@link LaunchSpec#environment()} and nothing inherited;
 *   <li>when {@link LaunchSpec#workingDirectoryIdentity()} is present, start the child only in a
 *       directory with that device and inode, and otherwise start nothing and report a setup failure
 *       whose detail starts with {@code WORKSPACE_CHANGED:};
 *   <li>call {@link LaunchSpec#ownership()} with its identity before the child starts, and not start
 *       the child if that call fails;
 *   <li>write {@link LaunchSpec#stdin()} and close the child's stdin, never blocking on a child
 *       that does not read;
 *   <li>never keep more than the stdout and stderr limits in memory, and end the run as soon as
 *       either is exceeded;
 *   <li>on exit, deadline, cancel or overflow: SIGTERM the tree, wait the grace, SIGKILL, and report
 *       {@link SupervisionResult.CleanupEvidence#proven()} only on positive evidence that no
 *       descendant remains;
 *   <li>complete {@link SupervisedRun#result()} exactly once, and never with an exception for an
 *       expected outcome (a spawn failure is a result, not a throw).
 * </ul>
 * A supervisor is not a sandbox: the child runs with the host user's file and network access.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface ProcessSupervisor {

    /** A stable, human-readable name, e.g. {@code linux-subreaper} or {@code portable}. */
    String name();

    /** What this supervisor offers on this machine. Never throws; probing is cheap and cached. */
    SupervisorCapabilities capabilities();

    /**
     * Starts the process. Returns immediately; the run proceeds asynchronously.
     *
     * @param spec what to run and within which bounds
     * @param listener progress events (never output contents)
     * @return the run handle; its result completes exactly once
     */
    SupervisedRun launch(LaunchSpec spec, SupervisionListener listener);
}
