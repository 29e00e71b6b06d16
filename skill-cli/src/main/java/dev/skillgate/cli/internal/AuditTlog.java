package dev.skillgate.cli.internal;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.AuditTree;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.tlog.ConsistencyProof;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerification;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.ProofVerification;
import dev.skillgate.tlog.Rfc6962;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogCheckpoint;
import dev.skillgate.tlog.TlogProof;
import dev.skillgate.tlog.WitnessRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The transparency-log side of {@code skillgate audit} (issue 22): {@code keygen}, {@code
 * checkpoint}, {@code prove}, {@code consistency} and {@code verify-proof}, plus the C2SP branch of
 * {@code verify --checkpoint}. Formats are skill-tlog's: C2SP signed-note keys and checkpoints,
 * {@code tlog-proof@v1} files and tlog-witness {@code add-checkpoint} bodies ({@code docs/audit.md}).
 *
 * <p>Every command that reads the log opens it read-only (no lock, nothing repaired). What a verified
 * proof shows and does not show is stated in {@code docs/audit.md}; nothing here makes a skill safe.
 */
final class AuditTlog {
    /** The subcommands handled here. */
    static final Set<String> COMMANDS = Set.of("keygen", "checkpoint", "prove", "consistency", "verify-proof");

    /** The stored frame of an audit record: u32 len, u64 seq, u8 type, payload, 32-byte hash, u32 CRC. */
    private static final int FRAME_OVERHEAD = 49;

    private static final int MAX_FRAME = 65_536 + FRAME_OVERHEAD;

    /** Largest proof file read: a tlog-proof with a maximal frame as extra data and a large note. */
    private static final int MAX_PROOF = SignedNote.MAX_SIZE + 8192;

    private static final String[] TYPES = {
        "",
        "APPROVE",
        "REVOKE",
        "REPAIR",
        "CONSUME",
        "POLICY_CHANGE",
        "SETTLE",
        "RESOLVE",
        "PLAN_APPROVE",
        "PLAN_STEP",
        "WORKFLOW"
    };

    private AuditTlog() {}

    static ExitCode run(String command, List<String> argv, PrintStream out, PrintStream err) throws UsageException {
        return switch (command) {
            case "keygen" -> keygen(Args.parse(argv, Set.of("--json", "--force"), Set.of("--name", "--out")), out, err);
            case "checkpoint" ->
                checkpoint(
                        Args.parse(argv, Set.of("--json", "--force"), Set.of("--data-dir", "--key", "--out")),
                        out,
                        err);
            case "prove" ->
                prove(
                        Args.parse(
                                argv,
                                Set.of("--json", "--force"),
                                Set.of("--data-dir", "--seq", "--checkpoint", "--key", "--out")),
                        out,
                        err);
            case "consistency" ->
                consistency(
                        Args.parse(
                                argv,
                                Set.of("--json", "--force"),
                                Set.of("--data-dir", "--from", "--out", "--sign-with"),
                                Set.of("--key")),
                        out,
                        err);
            case "verify-proof" ->
                verifyProof(
                        Args.parse(
                                argv,
                                Set.of("--json"),
                                Set.of("--proof", "--origin", "--checkpoint", "--record"),
                                Set.of("--key")),
                        out,
                        err);
            default -> throw new UsageException("unknown subcommand '" + Args.printable(command) + "'");
        };
    }

    private static void noPositionals(Args args) throws UsageException {
        if (args.positionals().size() != 1) {
            throw new UsageException(
                    "unexpected argument '" + Args.printable(args.positionals().get(1)) + "'");
        }
    }

    /** The checked {@code --out} file, when given. */
    private static Optional<Path> outTarget(Args args) throws UsageException {
        Optional<String> out = args.value("--out");
        return out.isPresent() ? Optional.of(OutputFiles.target("--out", out.get())) : Optional.empty();
    }

    private static String required(Args args, String option) throws UsageException {
        return args.value(option).orElseThrow(() -> new UsageException(option + " is required"));
    }

    // ---- keygen ----

    private static ExitCode keygen(Args args, PrintStream out, PrintStream err) throws UsageException {
        noPositionals(args);
        String schema = "skillgate.audit-keygen/1";
        boolean json = args.has("--json");
        String name = required(args, "--name");
        NoteSigner signer;
        try {
            signer = NoteSigner.generate(name);
        } catch (InvalidValueException e) {
            throw new UsageException("--name must be 1-256 bytes without spaces, '+' or control characters");
        }
        Path file = OutputFiles.target("--out", required(args, "--out"));
        byte[] secret = (signer.encodePrivate() + "\n").getBytes(StandardCharsets.UTF_8);
        Optional<Diagnostic> refused;
        try {
            refused = OutputFiles.write(file, secret, args.has("--force"));
        } catch (IOException e) {
            refused = Optional.of(ioProblem("--out", e));
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
        if (refused.isPresent()) {
            return fail(schema, json, out, err, refused.get());
        }
        String verifier = signer.verifierKey().encode();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            doc.put("name", signer.name());
            doc.put("verifierKey", verifier);
            doc.put("keyFile", file.toString());
            JsonOut.print(out, doc);
        } else {
            // Standard output is exactly the verifier key, so that it can be redirected to a file.
            out.println(verifier);
            err.println("skillgate audit keygen: the signer key was written to " + Args.path(file.toString())
                    + " (0600). Keep it where the log's user cannot read it; give the verifier key above"
                    + " to whoever checks the checkpoints.");
        }
        return ExitCode.OK;
    }

    // ---- checkpoint ----

    private static ExitCode checkpoint(Args args, PrintStream out, PrintStream err) throws UsageException {
        noPositionals(args);
        String schema = "skillgate.audit-checkpoint/1";
        boolean json = args.has("--json");
        Path dir = AuditViews.auditDir(args);
        NoteSigner signer = signer(args, "--key", schema, json, out, err);
        if (signer == null) {
            return ExitCode.INVALID;
        }
        Optional<Path> target = outTarget(args);
        boolean force = args.has("--force");
        return withLog(dir, schema, json, out, err, log -> {
            Optional<AuditTree> tree = tree(log);
            if (tree.isEmpty()) {
                return fail(schema, json, out, err, untrusted(log.status()));
            }
            SignedNote note = tree.get().checkpoint(signer);
            byte[] bytes = note.encode();
            TlogCheckpoint cp = TlogCheckpoint.parse(note.text());
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            doc.put("origin", cp.origin());
            doc.put("size", cp.size());
            doc.put("root", cp.root().base64());
            doc.put("verifierKey", signer.verifierKey().encode());
            return emit(
                    new Emitted(schema, json, out, err, target, force),
                    bytes,
                    doc,
                    "checkpoint",
                    "checkpoint: origin " + Args.safe(cp.origin()) + ", " + cp.size() + " records, root "
                            + cp.root().base64());
        });
    }

    // ---- prove ----

    private static ExitCode prove(Args args, PrintStream out, PrintStream err) throws UsageException {
        noPositionals(args);
        String schema = "skillgate.audit-prove/1";
        boolean json = args.has("--json");
        Path dir = AuditViews.auditDir(args);
        long seq = positive("--seq", required(args, "--seq"));
        if (args.has("--checkpoint") == args.has("--key")) {
            throw new UsageException("give exactly one of --checkpoint FILE (prove against it) or --key FILE"
                    + " (sign a checkpoint of the log as it is now)");
        }
        Optional<Path> target = outTarget(args);
        Optional<SignedNote> given = Optional.empty();
        NoteSigner signer = null;
        if (args.has("--checkpoint")) {
            byte[] bytes = note("--checkpoint", args.value("--checkpoint").get());
            try {
                given = Optional.of(SignedNote.parse(bytes));
                TlogCheckpoint.parse(given.get().text());
            } catch (InvalidValueException e) {
                return fail(schema, json, out, err, e.toDiagnostic("--checkpoint"));
            }
        } else {
            signer = signer(args, "--key", schema, json, out, err);
            if (signer == null) {
                return ExitCode.INVALID;
            }
        }
        Optional<SignedNote> held = given;
        NoteSigner key = signer;
        boolean force = args.has("--force");
        return withLog(dir, schema, json, out, err, log -> {
            Optional<AuditTree> tree = tree(log);
            if (tree.isEmpty()) {
                return fail(schema, json, out, err, untrusted(log.status()));
            }
            SignedNote against = held.isPresent() ? held.get() : tree.get().checkpoint(key);
            Optional<TlogProof> proof;
            try {
                proof = tree.get().prove(seq, against);
            } catch (IllegalArgumentException e) {
                return fail(
                        schema,
                        json,
                        out,
                        err,
                        Diagnostic.error(
                                ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                                "--checkpoint",
                                "the checkpoint is not of this log (another origin), or its root is not that of the"
                                        + " log's first records: rolled back, rewritten or replaced"));
            }
            TlogCheckpoint cp = TlogCheckpoint.parse(against.text());
            if (proof.isEmpty()) {
                return fail(
                        schema,
                        json,
                        out,
                        err,
                        Diagnostic.error(
                                ErrorCode.AUDIT_PROOF_INVALID,
                                "--seq",
                                "record " + seq + " is not in the checkpoint's tree (" + cp.size() + " records)"));
            }
            byte[] bytes = proof.get().encode();
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            doc.put("sequence", seq);
            doc.put("index", proof.get().index());
            doc.put("origin", cp.origin());
            doc.put("treeSize", cp.size());
            doc.put("root", cp.root().base64());
            doc.put("hashes", proof.get().path().size());
            return emit(
                    new Emitted(schema, json, out, err, target, force),
                    bytes,
                    doc,
                    "proof",
                    "inclusion proof of record " + seq + " in " + cp.size() + " records ("
                            + proof.get().path().size() + " hashes), origin " + Args.safe(cp.origin()));
        });
    }

    // ---- consistency ----

    private static ExitCode consistency(Args args, PrintStream out, PrintStream err) throws UsageException {
        noPositionals(args);
        String schema = "skillgate.audit-consistency/1";
        boolean json = args.has("--json");
        Path dir = AuditViews.auditDir(args);
        List<NoteVerifierKey> keys = NoteKeyFiles.verifiers("--key", args.values("--key"));
        if (args.has("--out") != args.has("--sign-with")) {
            throw new UsageException(
                    "--out (a tlog-witness request body) needs --sign-with FILE, and the other way round");
        }
        Optional<Path> target = outTarget(args);
        byte[] from = note("--from", required(args, "--from"));
        NoteSigner signer = null;
        if (args.has("--sign-with")) {
            signer = signer(args, "--sign-with", schema, json, out, err);
            if (signer == null) {
                return ExitCode.INVALID;
            }
        }
        NoteSigner key = signer;
        boolean force = args.has("--force");
        return withLog(dir, schema, json, out, err, log -> {
            AuditStatus status = log.status();
            // The earlier checkpoint must verify on its own first: a refused note says nothing about the log.
            NoteVerification nv = SignedNote.open(from, keys);
            if (nv instanceof NoteVerification.Rejected r) {
                return report(
                        schema,
                        json,
                        out,
                        err,
                        status,
                        Optional.empty(),
                        Optional.empty(),
                        List.of(Diagnostic.error(r.code(), "--from", r.reason())));
            }
            TlogCheckpoint old;
            try {
                old = TlogCheckpoint.parse(
                        ((NoteVerification.Verified) nv).note().text());
            } catch (InvalidValueException e) {
                return report(
                        schema,
                        json,
                        out,
                        err,
                        status,
                        Optional.empty(),
                        Optional.empty(),
                        List.of(e.toDiagnostic("--from")));
            }
            Optional<AuditTree> tree = tree(log);
            if (tree.isEmpty()) {
                Diagnostic why = status.yieldsTrust() && status.committedSequence() == 0
                        ? Diagnostic.error(
                                ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                                "",
                                "the log holds no records but the checkpoint names " + old.size()
                                        + ": deleted, truncated or rolled back")
                        : untrusted(status);
                return report(schema, json, out, err, status, Optional.of(old), Optional.empty(), List.of(why));
            }
            AuditTree t = tree.get();
            CheckpointVerification v = t.verify(from, keys);
            if (!v.consistent()) {
                return report(schema, json, out, err, status, Optional.of(old), Optional.of(t), v.diagnostics());
            }
            ConsistencyProof proof = t.consistencyProof(old.size()).orElseThrow();
            if (!proof.verify(old.root(), t.root())) {
                return report(
                        schema,
                        json,
                        out,
                        err,
                        status,
                        Optional.of(old),
                        Optional.of(t),
                        List.of(Diagnostic.error(
                                ErrorCode.AUDIT_PROOF_INVALID, "", "the consistency proof does not verify")));
            }
            if (target.isPresent()) {
                SignedNote now = t.checkpoint(key);
                WitnessRequest body = t.witnessRequest(old.size(), now).orElseThrow();
                Optional<Diagnostic> refused = OutputFiles.write(target.get(), body.encode(), force);
                if (refused.isPresent()) {
                    return fail(schema, json, out, err, refused.get());
                }
            }
            if (json) {
                Map<String, Object> doc = document(schema, true, status, Optional.of(old), Optional.of(t), List.of());
                doc.put("proof", proof.path().stream().map(h -> h.base64()).toList());
                target.ifPresent(p -> doc.put("file", p.toString()));
                JsonOut.print(out, doc);
            } else {
                out.println("consistent: the log's first " + old.size() + " records are the checkpoint's (root "
                        + old.root().base64() + "); the log now holds " + t.size() + " records (root "
                        + t.root().base64() + ")");
                out.println("consistency proof: " + proof.path().size() + " hashes");
                for (var h : proof.path()) {
                    out.println("  " + h.base64());
                }
                target.ifPresent(p -> out.println("tlog-witness request body written to " + Args.path(p.toString())));
            }
            return ExitCode.OK;
        });
    }

    private static ExitCode report(
            String schema,
            boolean json,
            PrintStream out,
            PrintStream err,
            AuditStatus status,
            Optional<TlogCheckpoint> old,
            Optional<AuditTree> tree,
            List<Diagnostic> problems) {
        if (json) {
            JsonOut.print(out, document(schema, false, status, old, tree, problems));
        } else {
            AuditViews.printStatus(out, status);
            out.println("NOT consistent with the earlier checkpoint"
                    + old.map(c -> " (" + c.size() + " records)").orElse(""));
            for (Diagnostic d : problems) {
                err.println("skillgate audit consistency: " + d.code() + ": " + d.message());
            }
        }
        return ExitCode.INVALID;
    }

    private static Map<String, Object> document(
            String schema,
            boolean consistent,
            AuditStatus status,
            Optional<TlogCheckpoint> old,
            Optional<AuditTree> tree,
            List<Diagnostic> problems) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", schema);
        doc.put("consistent", consistent);
        doc.put("state", status.state().name());
        old.ifPresent(c -> {
            doc.put("origin", c.origin());
            doc.put("fromSize", c.size());
            doc.put("fromRoot", c.root().base64());
        });
        tree.ifPresent(t -> {
            doc.put("toSize", t.size());
            doc.put("toRoot", t.root().base64());
        });
        List<Diagnostic> all = new ArrayList<>(status.diagnostics());
        all.addAll(problems);
        doc.put("diagnostics", JsonOut.diagnostics(all));
        return doc;
    }

    // ---- verify-proof ----

    private static ExitCode verifyProof(Args args, PrintStream out, PrintStream err) throws UsageException {
        noPositionals(args);
        String schema = "skillgate.audit-verify-proof/1";
        boolean json = args.has("--json");
        List<NoteVerifierKey> keys = NoteKeyFiles.verifiers("--key", args.values("--key"));
        String origin = required(args, "--origin");
        byte[] proofBytes = CommandLineFiles.read("--proof", required(args, "--proof"), MAX_PROOF)
                .orElse(null);
        if (proofBytes == null) {
            return fail(
                    schema,
                    json,
                    out,
                    err,
                    Diagnostic.error(
                            ErrorCode.AUDIT_CHECKPOINT_FORMAT,
                            "--proof",
                            "the proof file is larger than " + MAX_PROOF + " bytes"));
        }
        Optional<byte[]> record = Optional.empty();
        if (args.has("--record")) {
            record = CommandLineFiles.read("--record", args.value("--record").get(), MAX_FRAME);
            if (record.isEmpty()) {
                return fail(
                        schema,
                        json,
                        out,
                        err,
                        Diagnostic.error(
                                ErrorCode.AUDIT_PROOF_INVALID,
                                "--record",
                                "the record file is larger than any audit record"));
            }
        }
        Optional<byte[]> held = args.has("--checkpoint")
                ? Optional.of(note("--checkpoint", args.value("--checkpoint").get()))
                : Optional.empty();
        TlogProof proof;
        try {
            proof = TlogProof.parse(proofBytes);
        } catch (InvalidValueException e) {
            return fail(schema, json, out, err, e.toDiagnostic("--proof"));
        }
        Optional<byte[]> extra = proof.extra();
        if (record.isPresent() && extra.isPresent() && !Arrays.equals(record.get(), extra.get())) {
            return fail(
                    schema,
                    json,
                    out,
                    err,
                    Diagnostic.error(
                            ErrorCode.AUDIT_PROOF_INVALID,
                            "--record",
                            "the record file is not the entry the proof carries"));
        }
        Optional<byte[]> entry = record.isPresent() ? record : extra;
        if (entry.isEmpty()) {
            throw new UsageException("the proof carries no record bytes: give --record FILE");
        }
        byte[] frame = entry.get();
        ProofVerification pv = proof.verifyLeaf(keys, origin, Rfc6962.leafHash(frame));
        if (pv instanceof ProofVerification.Rejected r) {
            return fail(schema, json, out, err, Diagnostic.error(r.code(), "--proof", r.reason()));
        }
        TlogCheckpoint cp = ((ProofVerification.Verified) pv).checkpoint();
        if (frame.length < FRAME_OVERHEAD
                || ByteBuffer.wrap(frame, 0, 4).getInt() != frame.length - FRAME_OVERHEAD
                || ByteBuffer.wrap(frame, 4, 8).getLong() != proof.index() + 1) {
            return fail(
                    schema,
                    json,
                    out,
                    err,
                    Diagnostic.error(
                            ErrorCode.AUDIT_PROOF_INVALID,
                            "--proof",
                            "the entry is not an audit record with sequence number " + (proof.index() + 1)));
        }
        if (held.isPresent()) {
            NoteVerification hv = SignedNote.open(held.get(), keys);
            if (hv instanceof NoteVerification.Rejected r) {
                return fail(schema, json, out, err, Diagnostic.error(r.code(), "--checkpoint", r.reason()));
            }
            String heldText = ((NoteVerification.Verified) hv).note().text();
            if (!heldText.equals(cp.text())) {
                return fail(
                        schema,
                        json,
                        out,
                        err,
                        Diagnostic.error(
                                ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                                "--checkpoint",
                                "the proof is against another checkpoint than the one held (another size, root or log)"));
            }
        }
        NoteVerification nv = SignedNote.open(proof.checkpoint(), keys);
        NoteVerification.Verified ok = (NoteVerification.Verified) nv;
        int type = frame[12] & 0xff;
        String payload = new String(frame, 13, frame.length - FRAME_OVERHEAD, StandardCharsets.UTF_8);
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            doc.put("verified", true);
            doc.put("origin", cp.origin());
            doc.put("treeSize", cp.size());
            doc.put("root", cp.root().base64());
            doc.put("sequence", proof.index() + 1);
            doc.put("type", type < TYPES.length && type > 0 ? TYPES[type] : Integer.toString(type));
            doc.put("payload", payload);
            doc.put(
                    "verifiedBy",
                    ok.verifiedBy().stream().map(NoteVerifierKey::encode).toList());
            doc.put("unknownSignatures", ok.unknownSignatures().size());
            doc.put("hashes", proof.path().size());
            JsonOut.print(out, doc);
        } else {
            out.println("verified: record " + (proof.index() + 1) + " is in " + Args.safe(cp.origin()) + " at size "
                    + cp.size() + " (root " + cp.root().base64() + ", "
                    + proof.path().size() + " hashes)");
            out.println("signed by: "
                    + String.join(
                            ", ",
                            ok.verifiedBy().stream()
                                    .map(k -> Args.safe(k.name()))
                                    .toList())
                    + (ok.unknownSignatures().isEmpty()
                            ? ""
                            : " (" + ok.unknownSignatures().size() + " signature(s) by unknown keys ignored)"));
            out.println("record: " + (type < TYPES.length && type > 0 ? TYPES[type] : "type " + type) + " "
                    + Args.safe(payload));
        }
        return ExitCode.OK;
    }

    // ---- C2SP branch of audit verify --checkpoint ----

    /** The outcome of {@code audit verify --checkpoint} for a C2SP note: the verification and the size it names. */
    record NoteCheck(CheckpointVerification verification, long size) {}

    /** Checks {@code note} against {@code log} with {@code keys}; the size is 0 when the note is unreadable. */
    static NoteCheck verifyNote(AuditLog log, byte[] note, List<NoteVerifierKey> keys) {
        long size = 0;
        NoteVerification nv = SignedNote.open(note, keys);
        if (nv instanceof NoteVerification.Verified ok) {
            try {
                size = TlogCheckpoint.parse(ok.note().text()).size();
            } catch (InvalidValueException e) {
                size = 0;
            }
        }
        AuditStatus s = log.status();
        if (nv.verified() && s.yieldsTrust() && s.committedSequence() == 0 && size > 0) {
            return new NoteCheck(
                    new CheckpointVerification(
                            false,
                            "",
                            List.of(Diagnostic.error(
                                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                                    "",
                                    "the log holds no records but the checkpoint names " + size
                                            + ": deleted, truncated or rolled back"))),
                    size);
        }
        return new NoteCheck(log.verifyCheckpoint(note, keys), size);
    }

    // ---- shared ----

    /** The bytes of a note file, bounded by {@link SignedNote#MAX_SIZE} (one byte over fails the parse). */
    static byte[] note(String option, String file) throws UsageException {
        return CommandLineFiles.read(option, file, SignedNote.MAX_SIZE)
                .orElseGet(() -> new byte[SignedNote.MAX_SIZE + 1]);
    }

    private static Optional<AuditTree> tree(AuditLog log) throws IOException {
        if (!log.status().yieldsTrust()) {
            return Optional.empty();
        }
        return log.tree();
    }

    private static Diagnostic untrusted(AuditStatus s) {
        if (s.state() == AuditState.VERIFYING) {
            return Diagnostic.error(ErrorCode.AUDIT_VERIFYING, "", "the log is still being verified; try again");
        }
        if (s.yieldsTrust()) {
            return Diagnostic.error(ErrorCode.AUDIT_CHECKPOINT_MISMATCH, "", "the log holds no records yet");
        }
        return Diagnostic.error(
                ErrorCode.AUDIT_DISABLED,
                "",
                "the log is " + s.state()
                        + (s.firstBadSequence().isPresent()
                                ? " (first bad record: seq "
                                        + s.firstBadSequence().getAsLong() + ")"
                                : "")
                        + "; it yields no tree, no checkpoint and no proof");
    }

    private static NoteSigner signer(
            Args args, String option, String schema, boolean json, PrintStream out, PrintStream err)
            throws UsageException {
        NoteKeyFiles.Loaded loaded = NoteKeyFiles.signer(option, required(args, option));
        if (loaded instanceof NoteKeyFiles.Refused r) {
            fail(
                    schema,
                    json,
                    out,
                    err,
                    Diagnostic.error(r.why().code(), option, r.why().message()));
            return null;
        }
        return ((NoteKeyFiles.Signer) loaded).signer();
    }

    private static long positive(String option, String value) throws UsageException {
        if (!value.matches("[1-9][0-9]{0,18}")) {
            throw new UsageException(option + " must be a record sequence number (1 or more)");
        }
        return Long.parseLong(value);
    }

    /** A command's work on the read-only log; an I/O failure becomes an {@code AUDIT_IO} diagnostic. */
    @FunctionalInterface
    private interface LogCommand {
        ExitCode run(AuditLog log) throws IOException;
    }

    /**
     * Opens the audit log in {@code dir} read-only (no lock, nothing repaired) and runs {@code command}
     * on it; an unreadable directory, and any I/O failure while opening, reading, writing or closing, is
     * reported as a failure of {@code schema}.
     */
    private static ExitCode withLog(
            Path dir, String schema, boolean json, PrintStream out, PrintStream err, LogCommand command) {
        Optional<Diagnostic> unreadable = AuditViews.unreadable(dir);
        if (unreadable.isPresent()) {
            return fail(schema, json, out, err, unreadable.get());
        }
        try (AuditLog log = AuditViews.openReadOnly(dir)) {
            return command.run(log);
        } catch (IOException e) {
            return fail(schema, json, out, err, ioProblem("audit.log", e));
        }
    }

    /** Where and how a command that yields one file (a checkpoint, a proof) reports it. */
    private record Emitted(
            String schema, boolean json, PrintStream out, PrintStream err, Optional<Path> target, boolean force) {}

    /**
     * The shared tail of {@code checkpoint} and {@code prove}: writes {@code bytes} to the target when
     * one is given (a refusal is a failure), then prints the JSON document ({@code doc} plus the file and
     * the bytes as {@code field}), or the {@code summary} and where it was written, or the bytes themselves.
     */
    private static ExitCode emit(Emitted to, byte[] bytes, Map<String, Object> doc, String field, String summary)
            throws IOException {
        if (to.target().isPresent()) {
            Optional<Diagnostic> refused = OutputFiles.write(to.target().get(), bytes, to.force());
            if (refused.isPresent()) {
                return fail(to.schema(), to.json(), to.out(), to.err(), refused.get());
            }
        }
        if (to.json()) {
            to.target().ifPresent(t -> doc.put("file", t.toString()));
            doc.put(field, new String(bytes, StandardCharsets.UTF_8));
            JsonOut.print(to.out(), doc);
        } else if (to.target().isPresent()) {
            to.out().println(summary);
            to.out().println("written to " + Args.path(to.target().get().toString()));
        } else {
            to.out().write(bytes, 0, bytes.length);
            to.out().flush();
        }
        return ExitCode.OK;
    }

    private static Diagnostic ioProblem(String where, IOException e) {
        return Diagnostic.error(
                ErrorCode.AUDIT_IO,
                where,
                "the file could not be read or written (" + e.getClass().getSimpleName() + ")");
    }

    private static ExitCode fail(String schema, boolean json, PrintStream out, PrintStream err, Diagnostic d) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            if (schema.endsWith("verify-proof/1")) {
                doc.put("verified", false);
            }
            if (schema.endsWith("consistency/1")) {
                doc.put("consistent", false);
            }
            doc.put("diagnostics", JsonOut.diagnostics(List.of(d)));
            JsonOut.print(out, doc);
        } else {
            err.println("skillgate audit: " + d.code() + ": " + d.message());
        }
        return ExitCode.INVALID;
    }
}
