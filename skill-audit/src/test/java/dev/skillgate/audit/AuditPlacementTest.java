package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Severity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer never opens an audit log whose data directory another user or group could change
 * ({@code DATA_DIRECTORY_UNSAFE}, decision 0520): such a user could replace the whole log with one
 * they chained themselves. Nothing is created there, nothing is trusted, nothing is appended.
 */
@EnabledOnOs(OS.LINUX)
class AuditPlacementTest {
    @TempDir
    Path tmp;

    private static void assertRefusedPlacement(AuditLog log, Path component) {
        AuditStatus st = log.status();
        assertThat(st.state()).isEqualTo(AuditState.DISABLED);
        assertThat(st.writable()).isFalse();
        Diagnostic first = st.diagnostics().get(0);
        assertThat(first.code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        assertThat(first.location()).isEqualTo(component.toString());
        assertThat(first.message()).contains("directory holding the audit log");
        assertThat(log.approve(Fixtures.execution(1)).isCommitted()).isFalse();
        assertThat(log.isTrusted(Fixtures.execution(1))).isFalse();
    }

    @Test
    void aWriterBelowAGroupWritableDirectoryCreatesNothingAndTrustsNothing() throws IOException {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxr-x"));
        Path audit = shared.resolve("data").resolve("audit");
        try (AuditLog log = Fixtures.open(audit)) {
            assertRefusedPlacement(log, shared);
        }
        assertThat(shared.resolve("data")).doesNotExist();
    }

    @Test
    void aValidLogWhoseDataDirectoryOthersCanNowWriteIsNoLongerTrusted() throws IOException {
        Path data = Files.createDirectory(tmp.resolve("data"));
        Path audit = data.resolve("audit");
        ExecutionScope scope = Fixtures.execution(7);
        try (AuditLog log = Fixtures.open(audit)) {
            assertThat(log.approve(scope).isCommitted()).isTrue();
            assertThat(log.isTrusted(scope)).isTrue();
        }
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
        try (AuditLog log = Fixtures.open(audit)) {
            assertRefusedPlacement(log, data);
            assertThat(log.isTrusted(scope)).isFalse();
        }
        // A reader changes nothing, so it still reads the records, and says where they live.
        try (AuditLog reader = AuditLog.open(AuditLogOptions.builder(audit)
                .readOnly(true)
                .openWait(Duration.ofSeconds(30))
                .build())) {
            assertThat(reader.status().diagnostics()).anySatisfy(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
                assertThat(d.severity()).isEqualTo(Severity.WARNING);
            });
            assertThat(reader.status().committedSequence()).isEqualTo(1);
        }
    }

    @Test
    void aDataDirectoryBelowAnotherUsersDirectoryIsRefused() throws IOException {
        assumeTrue(Fixtures.runningAsRoot(), "only root can hand a directory to another uid");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 2_000_012_345);
        try (AuditLog log = Fixtures.open(theirs.resolve("data").resolve("audit"))) {
            assertRefusedPlacement(log, theirs);
        }
        assertThat(theirs.resolve("data")).doesNotExist();
    }
}
