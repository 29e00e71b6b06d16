package dev.skillgate.runner.linux;

import dev.skillgate.runner.ModuleConfinementContract;
import dev.skillgate.runner.ProcessSupervisor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Module confinement (issue 15, attacks 2 and 3) through the Linux subreaper supervisor, as {@code
 * skillgate run} uses it: cleanup is proven, so a refused module must end the run {@code FAILED} with
 * {@code STAGED_MODULE_CHANGED} alone, and the positives {@code SUCCEEDED} with their exact output.
 */
@EnabledOnOs(OS.LINUX)
class LinuxModuleConfinementTest extends ModuleConfinementContract {
    private ProcessSupervisor supervisor;

    @Override
    protected synchronized ProcessSupervisor supervisor() {
        if (supervisor == null) {
            try {
                Path data = Files.createTempDirectory(base, "supervisor-data");
                supervisor =
                        LinuxSubreaperSupervisor.builder().dataDirectory(data).build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return supervisor;
    }
}
