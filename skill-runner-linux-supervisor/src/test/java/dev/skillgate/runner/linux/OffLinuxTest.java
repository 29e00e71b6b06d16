package dev.skillgate.runner.linux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.runner.SupervisorCapabilities;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Off Linux there is no helper: the supervisor is unavailable and says why. */
@DisabledOnOs(OS.LINUX)
class OffLinuxTest {
    @TempDir
    Path data;

    @Test
    void capabilitiesAreUnavailableWithProcessOwnershipUnsupported() {
        SupervisorCapabilities c =
                LinuxSubreaperSupervisor.builder().dataDirectory(data).build().capabilities();
        assertThat(c.available()).isFalse();
        assertThat(c.provesCleanup()).isFalse();
        assertThat(c.detail()).startsWith("PROCESS_OWNERSHIP_UNSUPPORTED:");
    }
}
