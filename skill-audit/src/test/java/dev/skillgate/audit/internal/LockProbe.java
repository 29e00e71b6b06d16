package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * Child JVM for {@link LockTrapsTest} (not a test). Answers through its exit code, which a killed or
 * exiting child cannot lose: 0 = got the lock (writable), 3 = refused (read-only, AUDIT_LOCKED),
 * 1 = anything else.
 *
 * <ul>
 *   <li>{@code audit DIR}: open the audit log and report;
 *   <li>{@code hold DIR}: open it, print {@code ready}, wait for stdin to close, append once, exit 0
 *       if committed;
 *   <li>{@code raw FILE}: {@code tryLock} on a plain file.
 * </ul>
 */
public final class LockProbe {
    private LockProbe() {}

    public static void main(String[] args) throws IOException {
        Path p = Path.of(args[1]);
        switch (args[0]) {
            case "audit" -> {
                try (AuditLog log = AuditLog.open(AuditLogOptions.builder(p)
                        .openWait(Duration.ofSeconds(30))
                        .build())) {
                    if (log.status().writable()) {
                        System.exit(0);
                    }
                    boolean locked =
                            log.status().diagnostics().stream().anyMatch(d -> d.code() == ErrorCode.AUDIT_LOCKED);
                    System.exit(locked ? 3 : 1);
                }
            }
            case "hold" -> {
                try (AuditLog log = AuditLog.open(AuditLogOptions.builder(p)
                        .openWait(Duration.ofSeconds(30))
                        .build())) {
                    System.out.println(log.status().writable() ? "ready" : "refused");
                    System.out.flush();
                    while (System.in.read() >= 0) {
                        // wait for the parent to close our stdin
                    }
                    System.exit(log.approve(Fixtures.prompt(777)).isCommitted() ? 0 : 1);
                }
            }
            case "raw" -> {
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    FileLock lock = ch.tryLock();
                    System.exit(lock != null ? 0 : 3);
                }
            }
            default -> System.exit(1);
        }
    }
}
