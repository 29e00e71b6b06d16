package dev.skillgate.audit.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * The checks a reader's open ({@link ReadOnlyOpen}) and the writer's recovery ({@link Recovery})
 * share before they scan: the log and head files' placement (mode, owner, type), which of the two
 * exist, and the head's parse. Every failure is published as {@code DISABLED} with the same code,
 * location and reason for both; what happens to a log that does not exist yet differs (a reader
 * reports it, the writer starts one) and is left to the caller. Worker-confined.
 */
final class HeadPlacement {
    private HeadPlacement() {}

    /** What the checks found. */
    sealed interface Found permits Published, NoLogYet, Parsed {}

    /** A failure was published as {@code DISABLED}; the caller stops. */
    record Published() implements Found {}

    /**
     * No head, and at most a header in the log: no log exists yet.
     *
     * @param logExists whether a log file (a header at most) is there
     */
    record NoLogYet(boolean logExists) implements Found {}

    /**
     * Both files are there and the head parses.
     *
     * @param head the parsed commit point
     * @param bytes the head file's bytes as read (a reader compares them after its scan)
     */
    record Parsed(Head head, byte[] bytes) implements Found {}

    /**
     * Runs the shared checks and publishes any failure on {@code s}.
     *
     * @param writer whether the caller is the writer: its file check tightens modes, and existence is
     *     by {@code Files.exists} without following links (a reader uses {@link AuditDirectory#present},
     *     which reports an unexpected error instead of "absent")
     */
    static Found check(LogState s, AuditDirectory files, boolean writer, List<Diagnostic> notes) throws IOException {
        boolean[] permissionFault = {false};
        for (String name : List.of(AuditDirectory.LOG, AuditDirectory.HEAD)) {
            String bad = files.checkFile(name, writer, notes, permissionFault);
            if (bad != null) {
                s.publishDisabled(
                        permissionFault[0] ? ErrorCode.AUDIT_PERMISSIONS : ErrorCode.AUDIT_CORRUPT,
                        name,
                        -1,
                        bad,
                        null,
                        notes);
                return new Published();
            }
        }
        Path logP = files.resolve(AuditDirectory.LOG);
        Path headP = files.resolve(AuditDirectory.HEAD);
        boolean logExists = exists(logP, writer);
        if (!exists(headP, writer)) {
            if (!logExists || Files.size(logP) <= Frames.HEADER_SIZE) {
                return new NoLogYet(logExists);
            }
            s.publishDisabled(
                    ErrorCode.AUDIT_CORRUPT,
                    AuditDirectory.HEAD,
                    -1,
                    "the commit point is missing but the log holds records",
                    null,
                    notes);
            return new Published();
        }
        if (!logExists) {
            s.publishDisabled(
                    ErrorCode.AUDIT_CORRUPT,
                    AuditDirectory.LOG,
                    -1,
                    "the log is missing but its commit point exists",
                    null,
                    notes);
            return new Published();
        }
        byte[] bytes = AuditDirectory.readBounded(headP, Head.MAX_SIZE + 1);
        try {
            return new Parsed(Head.parse(bytes), bytes);
        } catch (Frames.FormatException e) {
            s.publishDisabled(
                    ErrorCode.AUDIT_CORRUPT,
                    AuditDirectory.HEAD,
                    -1,
                    "the commit point is unreadable: " + e.getMessage(),
                    null,
                    notes);
            return new Published();
        }
    }

    private static boolean exists(Path p, boolean writer) throws IOException {
        return writer ? Files.exists(p, LinkOption.NOFOLLOW_LINKS) : AuditDirectory.present(p);
    }
}
