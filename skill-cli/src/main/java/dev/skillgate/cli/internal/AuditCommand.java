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
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogCheckpoint;
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
 * {@code skillgate audit verify|list|repair} and, through {@link AuditTlog}, {@code keygen},
 * {@code checkpoint}, {@code prove}, {@code consistency} and {@code verify-proof}. Every command but
 * {@code repair} is read-only on the log in {@code DATA_DIR/audit}: it never takes the writer's lock,
 * never creates, repairs or truncates a file there.
 */
final class AuditCommand implements Command {
    @Override
    public String name() {
        return "audit";
    }

    @Override
    public String summary() {
        return "verify, list, checkpoint and prove the trust audit log";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate audit verify --data-dir DIR [--checkpoint FILE] [--json]
                       skillgate audit verify --data-dir DIR --checkpoint FILE --key VERIFIERKEY... [--json]
                       skillgate audit list --data-dir DIR [--json]
                       skillgate audit repair --data-dir DIR --reason TEXT [--json]
                       skillgate audit keygen --name NAME --out FILE [--force] [--json]
                       skillgate audit checkpoint --data-dir DIR --key FILE [--out FILE [--force]] [--json]
                       skillgate audit prove --data-dir DIR --seq N (--checkpoint FILE | --key FILE)
                                             [--out FILE [--force]] [--json]
                       skillgate audit consistency --data-dir DIR --from FILE --key VERIFIERKEY...
                                             [--out FILE --sign-with FILE [--force]] [--json]
                       skillgate audit verify-proof --proof FILE --key VERIFIERKEY... --origin ORIGIN
                                             [--checkpoint FILE] [--record FILE] [--json]

                verify  checks every committed record of DIR/audit (framing, CRC, sequence, hash
                        chain, Merkle root, payload schema) against the commit point, reports the
                        first bad record, and with --checkpoint checks that the log extends a
                        checkpoint held elsewhere (detects truncation and rollback before it). A C2SP
                        checkpoint needs --key (repeatable; unknown signers are ignored); the legacy
                        skillgate-audit-checkpoint/v1 format names its own key.
                list    prints the verified records in order.
                verify and list are read-only: no lock is taken and nothing is repaired.
                repair  the audited operator action that ends a DISABLED log: the old files move to
                        DIR/audit/audit.corrupt-<time>-<rand>/ and a new log starts with a REPAIR
                        record carrying TEXT; every earlier approval is gone (exit 1 when the log
                        is not disabled, 3 while another process holds it).
                keygen  makes a C2SP signed-note Ed25519 key: the signer key (PRIVATE+KEY+...) goes
                        to FILE (0600, never replaced without --force), the verifier key
                        (name+hexid+base64) to standard output.
                checkpoint  a C2SP tlog-checkpoint of the log (origin NAME/LOGID, size, RFC 6962
                        root) signed with the signer key FILE; to standard output or --out FILE.
                prove   a C2SP tlog-proof of record N (its stored bytes as extra data) against
                        --checkpoint FILE (a checkpoint of this log, now or earlier) or against a
                        new checkpoint signed with --key FILE.
                consistency  checks that the log extends the earlier checkpoint --from FILE
                        (signed by a VERIFIERKEY) and prints the RFC 6962 consistency proof; with
                        --out and --sign-with writes a tlog-witness add-checkpoint body.
                verify-proof  checks a tlog-proof without the log: the checkpoint is signed by a
                        VERIFIERKEY, names ORIGIN, and the record bytes lead to its root.
                exit codes: 0 verified, 1 disabled/corrupt, checkpoint or proof refused, output
                        exists; 2 usage (also a missing, linked or non-regular input file)
                """;
    }

    @Override
    public ExitCode run(List<String> argv, PrintStream out, PrintStream err) throws UsageException {
        if (!argv.isEmpty() && AuditTlog.COMMANDS.contains(argv.get(0))) {
            return AuditTlog.run(argv.get(0), argv, out, err);
        }
        Args args =
                Args.parse(argv, Set.of("--json"), Set.of("--data-dir", "--checkpoint", "--reason"), Set.of("--key"));
        List<String> positionals = args.positionals();
        if (positionals.size() != 1) {
            throw new UsageException(
                    "expected one of: verify, list, repair, keygen, checkpoint, prove, consistency," + " verify-proof");
        }
        if (!args.values("--key").isEmpty() && !positionals.get(0).equals("verify")) {
            throw new UsageException("--key applies to verify --checkpoint only");
        }
        Path dir = AuditViews.auditDir(args);
        boolean json = args.has("--json");
        return switch (positionals.get(0)) {
            case "repair" -> AuditRepair.run(dir, args, json, out, err);
            case "verify" -> verify(dir, args.value("--checkpoint"), args.values("--key"), json, out, err);
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
            Path dir,
            Optional<String> checkpointFile,
            List<String> keyValues,
            boolean json,
            PrintStream out,
            PrintStream err)
            throws UsageException {
        Optional<Checkpoint> legacy = Optional.empty();
        Optional<byte[]> note = Optional.empty();
        List<NoteVerifierKey> keys = List.of();
        if (checkpointFile.isEmpty() && !keyValues.isEmpty()) {
            throw new UsageException("--key applies to a C2SP --checkpoint only");
        }
        if (checkpointFile.isPresent()) {
            // Bounded, never through a link, never a FIFO; one byte over the bound fails the parse.
            byte[] text = AuditTlog.note("--checkpoint", checkpointFile.get());
            if (startsWith(text, LEGACY_HEADER)) {
                if (!keyValues.isEmpty()) {
                    throw new UsageException("--key is for C2SP checkpoints; a legacy checkpoint names its own key");
                }
                try {
                    legacy = Optional.of(Checkpoint.parse(text));
                } catch (InvalidValueException e) {
                    err.println("skillgate audit: " + e.getMessage());
                    return ExitCode.INVALID;
                }
            } else {
                try {
                    TlogCheckpoint.parse(SignedNote.parse(text).text());
                } catch (InvalidValueException e) {
                    err.println("skillgate audit: " + e.getMessage());
                    return ExitCode.INVALID;
                }
                if (keyValues.isEmpty()) {
                    throw new UsageException("a C2SP checkpoint needs --key VERIFIERKEY (name+hexid+base64, or @FILE);"
                            + " only the legacy skillgate-audit-checkpoint/v1 format names its own key");
                }
                keys = NoteKeyFiles.verifiers("--key", keyValues);
                note = Optional.of(text);
            }
        }
        Optional<Diagnostic> unreadable = AuditViews.unreadable(dir);
        if (unreadable.isPresent()) {
            return AuditViews.refuseUnreadable(unreadable.get(), "skillgate.audit-verify/1", json, out, err);
        }
        try (AuditLog log = AuditViews.openReadOnly(dir)) {
            AuditStatus status = log.status();
            Optional<CheckpointVerification> cv = legacy.map(cp -> log.verify(cp, Optional.empty()));
            long cpSize = legacy.map(Checkpoint::size).orElse(0L);
            String format = "legacy";
            if (note.isPresent()) {
                AuditTlog.NoteCheck check = AuditTlog.verifyNote(log, note.get(), keys);
                cv = Optional.of(check.verification());
                cpSize = check.size();
                format = "c2sp";
            }
            boolean ok = status.yieldsTrust()
                    && cv.map(CheckpointVerification::consistent).orElse(true);
            long size = cpSize;
            String fmt = format;
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("schema", "skillgate.audit-verify/1");
                doc.put("verified", ok);
                doc.putAll(AuditViews.status(status));
                cv.ifPresent(v -> {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("format", fmt);
                    c.put("consistent", v.consistent());
                    c.put("keyId", v.keyId());
                    c.put("size", size);
                    c.put("diagnostics", JsonOut.diagnostics(v.diagnostics()));
                    doc.put("checkpoint", c);
                });
                JsonOut.print(out, doc);
            } else {
                AuditViews.printStatus(out, status);
                cv.ifPresent(v -> {
                    out.println("checkpoint: " + (v.consistent() ? "consistent" : "NOT consistent") + " (" + size
                            + " records, " + ("c2sp".equals(fmt) ? "C2SP, " : "")
                            + (v.keyId().isEmpty() ? "no trusted signature" : "signed by key " + Args.safe(v.keyId()))
                            + ")");
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

    private static final byte[] LEGACY_HEADER =
            "skillgate-audit-checkpoint/v1\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length
                && java.util.Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
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
