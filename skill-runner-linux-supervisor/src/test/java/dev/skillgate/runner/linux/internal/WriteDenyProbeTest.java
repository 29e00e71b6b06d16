package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Decision 0848: the witness rule of 0838 is used only where the kernel shows it write-denies. */
@EnabledOnOs(OS.LINUX)
class WriteDenyProbeTest {
    @TempDir
    Path dir;

    @Test
    void thisKernelRefusesToExecuteAFileOpenForWritingAndTheProbeLeavesNothingBehind() throws IOException {
        assertThat(WriteDenyProbe.probe(dir)).isTrue();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void withNoWriterHeldTheFileStartsAndTheProbeShowsNothing() throws IOException {
        // The control: the same probe, its writer closed before the exec, so the kernel does start
        // the file; only ETXTBSY may count as shown, never a start or another failure.
        assertThat(WriteDenyProbe.probe(dir, false)).isFalse();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aProbeThatCannotRunShowsNothingSoNoWitnessVouches() {
        assertThat(WriteDenyProbe.probe(dir.resolve("missing"))).isFalse();
    }

    @Test
    void aPreparedSupervisorHasAskedTheKernel() throws IOException {
        Path data = Files.createDirectory(
                dir.resolve("data"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        SupervisorCore c = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(c.capabilities().available()).as(c.capabilities().detail()).isTrue();
        assertThat(WriteDenyProbe.holds()).isTrue();
    }
}
