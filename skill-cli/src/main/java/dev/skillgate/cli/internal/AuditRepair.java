package dev.skillgate.cli.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code skillgate audit repair --data-dir DIR --reason TEXT}: the operator action the disabled-log
 * messages ask for (decision 0640), through {@link AuditLog#repair}: the old log moves aside, a new
 * log starts with a {@code REPAIR} record carrying the reason and the old files' digests, and every
 * earlier approval is gone. It needs the writer's lock, so it is refused while a host holds the log;
 * it is refused for a log that is not disabled ({@code AUDIT_REPAIR_NOT_NEEDED}).
 */
final class AuditRepair {
    private AuditRepair() {}

    static ExitCode run(Path auditDir, Args args, boolean json, PrintStream out, PrintStream err)
            throws UsageException {
        if (args.has("--checkpoint")) {
            throw new UsageException("--checkpoint applies to verify only");
        }
        String reason = args.value("--reason").orElseThrow(() -> new UsageException("--reason TEXT is required"));
        if (reason.isBlank() || reason.length() > 200 || reason.chars().anyMatch(Character::isISOControl)) {
            throw new UsageException("--reason must be 1-200 characters without control characters");
        }
        if (!Files.isDirectory(auditDir, LinkOption.NOFOLLOW_LINKS)) {
            return report(
                    json,
                    out,
                    err,
                    ExitCode.INVALID,
                    Diagnostic.error(ErrorCode.AUDIT_REPAIR_NOT_NEEDED, "", "no audit log exists; nothing to repair"),
                    0);
        }
        try (AuditLog log = AuditLog.open(
                AuditLogOptions.builder(auditDir).openWait(AuditViews.OPEN_WAIT).build())) {
            AuditStatus status = log.awaitReady(AuditViews.VERIFY_WAIT);
            boolean locked = status.diagnostics().stream().anyMatch(d -> d.code() == ErrorCode.AUDIT_LOCKED);
            if (locked) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.REFUSED,
                        Diagnostic.error(
                                ErrorCode.AUDIT_LOCKED,
                                "",
                                "another process holds the log; stop it (or repair through it) first"),
                        0);
            }
            if (status.state() != AuditState.DISABLED) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.INVALID,
                        Diagnostic.error(
                                ErrorCode.AUDIT_REPAIR_NOT_NEEDED,
                                "",
                                "the log is " + status.state() + ", not disabled: nothing to repair"),
                        0);
            }
            AppendResult r = log.repair(reason);
            if (r instanceof AppendResult.Committed c) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.OK,
                        Diagnostic.info(
                                ErrorCode.AUDIT_REPAIRED,
                                "",
                                "repaired: a new log starts at seq " + c.sequence()
                                        + " with the REPAIR record; the old files were moved aside in "
                                        + Args.path(auditDir.toString())
                                        + "; every earlier approval is gone and must be made again"),
                        c.sequence());
            }
            Diagnostic why =
                    r instanceof AppendResult.Refused refused ? refused.reason() : ((AppendResult.Failed) r).reason();
            return report(
                    json, out, err, r instanceof AppendResult.Failed ? ExitCode.INVALID : ExitCode.REFUSED, why, 0);
        }
    }

    private static ExitCode report(
            boolean json, PrintStream out, PrintStream err, ExitCode code, Diagnostic d, long seq) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.audit-repair/1");
            doc.put("repaired", code == ExitCode.OK);
            if (seq > 0) {
                doc.put("sequence", seq);
            }
            doc.put("diagnostics", JsonOut.diagnostics(List.of(d)));
            JsonOut.print(out, doc);
        } else if (code == ExitCode.OK) {
            out.println(d.message());
        } else {
            err.println("skillgate audit repair: " + d.code() + ": " + d.message());
        }
        return code;
    }
}
