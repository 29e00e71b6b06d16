package dev.skillgate.engine.internal;

import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.shared.DirectoryPlacement;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProcessSupervisor;
import java.util.List;
import java.util.Optional;

/**
 * The supervisor selection (made once, at first use, and only over a safe data directory) and the
 * one {@link NodeRunner} built on it. Thread-safe. Not API.
 */
final class Supervision {
    private final EngineCore.Config config;
    private final Object lock = new Object();
    private NodeRunner runner; // guarded by lock
    private SupervisorSelector.Choice selection; // guarded by lock

    Supervision(EngineCore.Config config) {
        this.config = config;
    }

    /**
     * The data directory's placement (decision 0520): when another user or group could change it or a
     * directory on its path, nothing that is kept there (policy, receipts, audit log, staging) can be
     * relied on, so nothing is looked up or run.
     */
    Optional<Diagnostic> unsafeDataDirectory() {
        return DirectoryPlacement.check(config.dataDirectory(), "data directory");
    }

    /**
     * The supervisor selection report (made once, at first use). Over a data directory another user
     * could change nothing is selected (the Linux supervisor would extract its helper there): the
     * report names that problem, and the selection is made once the directory is safe.
     */
    SupervisorSelection report() {
        synchronized (lock) {
            if (selection == null) {
                Optional<Diagnostic> unsafe = unsafeDataDirectory();
                if (unsafe.isPresent()) {
                    return new SupervisorSelection(
                            "none",
                            false,
                            false,
                            HardeningLayer.NONE,
                            false,
                            List.of(unsafe.get()),
                            "no supervisor is selected over a data directory another user could change");
                }
            }
        }
        return choice().report();
    }

    /** The selection, made at the first call. */
    SupervisorSelector.Choice choice() {
        synchronized (lock) {
            if (selection == null) {
                selection = config.supervisor().get();
            }
            return selection;
        }
    }

    /** The runner over {@code sel}'s supervisor, built at the first call. */
    NodeRunner runner(SupervisorSelector.Choice sel, NodeRuntime runtime) {
        synchronized (lock) {
            if (runner == null) {
                ProcessSupervisor supervisor = sel.supervisor().orElseThrow();
                runner = NodeRunner.builder()
                        .dataDirectory(config.dataDirectory())
                        .runtime(runtime)
                        .supervisor(supervisor)
                        .acceptUnprovenCleanup(sel.report().unprovenCleanupAccepted())
                        .reportStderr(config.scriptStderr())
                        .ceilings(config.ceilings())
                        .build();
            }
            return runner;
        }
    }
}
