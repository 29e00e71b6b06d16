package dev.skillgate.cli.internal;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.InvalidValueException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate audit verify|list}: read-only checks of the trust audit log in
 * {@code DATA_DIR/audit}. Never takes the writer's lock, never creates, repairs or truncates a
 * file.
 */
final class AuditCommand implements Command {
    @Override
    public String name() {
        return "audit";
    }

    @Override
    public String summary() {
        return "verify or list the trust audit log (read-only)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate audit verify --data-dir DIR [--checkpoint FILE] [--json]
                       skillgate audit list --data-dir DIR [--json]
                       skillgate audit repair --data-dir DIR --reason TEXT [--json]

                verify  checks every committed record of DIR/audit (framing, CRC, sequence, hash
                        chain, payload schema) against the commit point, reports the first bad
                        record, and with --checkpoint checks that the log extends a signed
                        checkpoint held elsewhere (detects truncation and rollback before it).
                list    prints the verified records in order.
                verify and list are read-only: no lock is taken and nothing is repaired.
                repair  the audited operator action that ends a DISABLED log: the old files move to
                        DIR/audit/audit.corrupt-<time>-<rand>/ and a new log starts with a REPAIR
                        record carrying TEXT; every earlier approval is gone (exit 1 when the log
                        is not disabled, 3 while another process holds it).
                exit codes: 0 verified, 1 disabled/corrupt or checkpoint mismatch, 2 usage
                """;
    }

    @Override
    public ExitCode run(List<String> argv, PrintStream out, PrintStream err) throws UsageException {
        Args args = Args.parse(argv, Set.of("--json"), Set.of("--data-dir", "--checkpoint", "--reason"));
        List<String> positionals = args.positionals();
        if (positionals.size() != 1) {
            throw new UsageException("expected one of: verify, list");
        }
        Path dir = AuditViews.auditDir(args);
        boolean json = args.has("--json");
        return switch (positionals.get(0)) {
            case "repair" -> AuditRepair.run(dir, args, json, out, err);
            case "verify" -> verify(dir, args.value("--checkpoint"), json, out, err);
            case "list" -> {
                if (args.has("--checkpoint")) {
                    throw new UsageException("--checkpoint applies to verify only");
                }
                yield list(dir, json, out, err);
            }
            default -> throw new UsageException("unknown subcommand '" + Args.printable(positionals.get(0)) + "'");
        };
    }

    private static ExitCode verify(
            Path dir, Optional<String> checkpointFile, boolean json, PrintStream out, PrintStream err)
            throws UsageException {
        Optional<Checkpoint> checkpoint = Optional.empty();
        if (checkpointFile.isPresent()) {
            // Bounded, never through a link, never a FIFO; one byte over the bound fails the parse.
            byte[] text = CommandLineFiles.read("--checkpoint", checkpointFile.get(), Checkpoint.MAX_SIZE)
                    .orElseGet(() -> new byte[Checkpoint.MAX_SIZE + 1]);
            try {
                checkpoint = Optional.of(Checkpoint.parse(text));
            } catch (InvalidValueException e) {
                err.println("skillgate audit: " + e.getMessage());
                return ExitCode.INVALID;
            }
        }
        Optional<Diagnostic> unreadable = AuditViews.unreadable(dir);
        if (unreadable.isPresent()) {
            return AuditViews.refuseUnreadable(unreadable.get(), "skillgate.audit-verify/1", json, out, err);
        }
        try (AuditLog log = AuditViews.openReadOnly(dir)) {
            AuditStatus status = log.status();
            Optional<CheckpointVerification> cv = checkpoint.map(cp -> log.verify(cp, Optional.empty()));
            long cpSize = checkpoint.map(Checkpoint::size).orElse(0L);
            boolean ok = status.yieldsTrust()
                    && cv.map(CheckpointVerification::consistent).orElse(true);
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("schema", "skillgate.audit-verify/1");
                doc.put("verified", ok);
                doc.putAll(AuditViews.status(status));
                cv.ifPresent(v -> {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("consistent", v.consistent());
                    c.put("keyId", v.keyId());
                    c.put("size", cpSize);
                    c.put("diagnostics", JsonOut.diagnostics(v.diagnostics()));
                    doc.put("checkpoint", c);
                });
                JsonOut.print(out, doc);
            } else {
                AuditViews.printStatus(out, status);
                cv.ifPresent(v -> {
                    out.println("checkpoint: " + (v.consistent() ? "consistent" : "NOT consistent") + " (" + cpSize
                            + " records, signed by key " + v.keyId() + ")");
                    for (Diagnostic d : v.diagnostics()) {
                        out.println("  " + d);
                    }
                });
                if (status.state() == AuditState.DISABLED) {
                    err.println(
                            "skillgate audit: the log is disabled; nothing it records is trusted until an operator repair");
                }
            }
            return ok ? ExitCode.OK : ExitCode.INVALID;
        }
    }

    private static ExitCode list(Path dir, boolean json, PrintStream out, PrintStream err) {
        Optional<Diagnostic> unreadable = AuditViews.unreadable(dir);
        if (unreadable.isPresent()) {
            return AuditViews.refuseUnreadable(unreadable.get(), "skillgate.audit-list/1", json, out, err);
        }
        try (AuditLog log = AuditViews.openReadOnly(dir)) {
            AuditStatus status = log.status();
            List<AuditRecord> records = new ArrayList<>();
            long after = 0;
            while (true) {
                List<AuditRecord> page = log.records(after, 10_000);
                if (page.isEmpty()) {
                    break;
                }
                records.addAll(page);
                after = page.get(page.size() - 1).sequence();
            }
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("schema", "skillgate.audit-list/1");
                doc.putAll(AuditViews.status(status));
                doc.put("records", records.stream().map(AuditViews::record).toList());
                JsonOut.print(out, doc);
            } else {
                for (AuditRecord r : records) {
                    out.println(AuditViews.recordLine(r));
                }
                AuditViews.printStatus(out, status);
            }
            if (status.state() == AuditState.DISABLED) {
                err.println("skillgate audit: the log is disabled; listed are the records before the first bad one");
                return ExitCode.INVALID;
            }
            return ExitCode.OK;
        } catch (IOException e) {
            err.println("skillgate audit: the log could not be read ("
                    + e.getClass().getSimpleName() + ")");
            return ExitCode.INVALID;
        }
    }
}
