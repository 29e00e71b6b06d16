package dev.skillgate.testkit.builtin;

import dev.skillgate.runner.PortableSupervisor;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.testkit.contract.AbstractProcessSupervisorContractTest;
import java.nio.file.Path;

/**
 * The supervisor TCK against the built-in portable supervisor: it cannot prove cleanup, so every
 * started run must end {@code CLEANUP_UNKNOWN} with the causes a proving supervisor would report.
 */
class PortableSupervisorContractTest extends AbstractProcessSupervisorContractTest {
    @Override
    protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
        return PortableSupervisor.create();
    }

    @Override
    protected boolean claimsCleanupProof() {
        return false;
    }
}
