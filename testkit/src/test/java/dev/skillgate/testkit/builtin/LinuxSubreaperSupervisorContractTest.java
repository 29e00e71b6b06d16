package dev.skillgate.testkit.builtin;

import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import dev.skillgate.testkit.contract.AbstractProcessSupervisorContractTest;
import java.nio.file.Path;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The supervisor TCK against the built-in Linux subreaper supervisor, which claims and must deliver proof. */
// snippet:begin supervisor-contract (docs/testkit.md)
@EnabledOnOs(OS.LINUX)
class LinuxSubreaperSupervisorContractTest extends AbstractProcessSupervisorContractTest {
    @Override
    protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
        return LinuxSubreaperSupervisor.builder()
                .dataDirectory(scratchDirectory)
                .spareHelper(false)
                .build();
    }

    @Override
    protected boolean claimsCleanupProof() {
        return true;
    }
}
// snippet:end supervisor-contract
