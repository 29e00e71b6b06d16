package dev.skillgate.runner.linux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.RealNodeRunnerContract;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The runner's real-node contract through the Linux subreaper supervisor: here cleanup is proven, so
 * the contract's positive cases must end {@code SUCCEEDED} with their exact output, and every failure
 * case with its own status instead of {@code CLEANUP_UNKNOWN}.
 */
@EnabledOnOs(OS.LINUX)
class LinuxRealNodeRunnerTest extends RealNodeRunnerContract {
    private ProcessSupervisor supervisor;

    @Override
    protected synchronized ProcessSupervisor supervisor() {
        if (supervisor == null) {
            try {
                Path data = Files.createTempDirectory(root, "supervisor-data");
                supervisor = LinuxSubreaperSupervisor.builder()
                        .dataDirectory(data)
                        .spareHelper(false)
                        .build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return supervisor;
    }

    @Test
    void thisSupervisorProvesCleanupHere() {
        assertThat(proves())
                .as("the contract below runs its success assertions")
                .isTrue();
    }
}
