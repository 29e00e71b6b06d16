package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogCheckpoint;
import dev.skillgate.tlog.TlogProof;
import dev.skillgate.tlog.WitnessRequest;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code skillgate audit keygen|checkpoint|prove|consistency|verify-proof} and {@code verify
 * --checkpoint} with C2SP checkpoints, through {@link Main} on real logs and real files: rollback of
 * log and head together and truncation caught by an earlier checkpoint, every flipped byte of a proof
 * refused, unknown signers ignored and cosignatures accepted.
 */
class AuditTlogCommandsTest extends CommandTestSupport {
    @TempDir
    Path tmp;

    private Path data;
    private Path key;
    private String verifier;

    @BeforeEach
    void seed() throws Exception {
        data = Files.createDirectory(tmp.resolve("data"));
        append(0, 3);
        key = tmp.resolve("log.key");
        assertThat(run("audit", "keygen", "--name", "audit.example/host-1", "--out", key.toString()))
                .as(this::stderr)
                .isZero();
        verifier = stdout().strip();
    }

    private void append(int from, int to) {
        try (AuditLog log = AuditLog.open(data.resolve("audit"))) {
            for (int i = from; i < to; i++) {
                assertThat(log.approve(scope(i)).isCommitted()).isTrue();
            }
        }
    }

    private static PromptSkillScope scope(int i) {
        return new PromptSkillScope(
                AgentId.of("claude-code"),
                SkillName.of("skill-" + i),
                Optional.empty(),
                new Revision(Sha256Digest.hash(("rev " + i).getBytes(StandardCharsets.UTF_8))));
    }

    private Path checkpoint(String name) {
        Path cp = tmp.resolve(name);
        assertThat(run(
                        "audit",
                        "checkpoint",
                        "--data-dir",
                        data.toString(),
                        "--key",
                        key.toString(),
                        "--out",
                        cp.toString()))
                .as(this::stderr)
                .isZero();
        return cp;
    }

    private String logId() {
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--json"))
                .isZero();
        return jsonTree().get("logId").asString();
    }

    private String origin() {
        return "audit.example/host-1/" + logId();
    }

    private void saveState(Path to) throws Exception {
        Files.createDirectories(to);
        for (String f : List.of("audit.log", "audit.head")) {
            Files.copy(data.resolve("audit").resolve(f), to.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void restoreState(Path from) throws Exception {
        for (String f : List.of("audit.log", "audit.head")) {
            Files.copy(from.resolve(f), data.resolve("audit").resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void keygenWritesAPrivateKeyFileOnlyItsOwnerCanReadAndNeverReplacesOneUnasked() throws Exception {
        assertThat(Files.getPosixFilePermissions(key)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        NoteSigner signer = NoteSigner.parse(Files.readString(key).strip());
        assertThat(signer.verifierKey().encode()).isEqualTo(verifier);
        assertThat(NoteVerifierKey.parse(verifier).name()).isEqualTo("audit.example/host-1");
        byte[] before = Files.readAllBytes(key);
        assertThat(run("audit", "keygen", "--name", "other", "--out", key.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_OUTPUT_EXISTS").doesNotContain("Exception");
        assertThat(Files.readAllBytes(key)).isEqualTo(before);
        assertThat(run("audit", "keygen", "--name", "other", "--out", key.toString(), "--force", "--json"))
                .isZero();
        assertThat(jsonTree().get("schema").asString()).isEqualTo("skillgate.audit-keygen/1");
        assertThat(NoteSigner.parse(Files.readString(key).strip()).name()).isEqualTo("other");
        // A link in the output's place is never written through, not even with --force.
        Path victim = Files.writeString(tmp.resolve("victim"), "untouched");
        Path link = Files.createSymbolicLink(tmp.resolve("link.key"), victim);
        assertThat(run("audit", "keygen", "--name", "x", "--out", link.toString(), "--force"))
                .isEqualTo(1);
        assertThat(stderr()).contains("READ_LINK");
        assertThat(Files.readString(victim)).isEqualTo("untouched");
        assertThat(run(
                        "audit",
                        "keygen",
                        "--name",
                        "has space",
                        "--out",
                        tmp.resolve("k2").toString()))
                .isEqualTo(2);
        assertThat(tmp.resolve("k2")).doesNotExist();
    }

    @Test
    void aC2spCheckpointVerifiesAgainstTheLogAndTheLegacyFormatStillNeedsNoKey() throws Exception {
        Path cp = checkpoint("cp-3");
        SignedNote note = SignedNote.parse(Files.readAllBytes(cp));
        TlogCheckpoint body = TlogCheckpoint.parse(note.text());
        assertThat(body.origin()).isEqualTo(origin());
        assertThat(body.size()).isEqualTo(3);
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cp.toString(),
                        "--key",
                        verifier))
                .as(this::stderr)
                .isZero();
        assertThat(stdout()).contains("checkpoint: consistent (3 records, C2SP, signed by key audit.example/host-1+");
        Path keys = Files.writeString(tmp.resolve("trusted.keys"), "# the log's key\n" + verifier + "\n\n");
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cp.toString(),
                        "--key",
                        "@" + keys,
                        "--json"))
                .isZero();
        JsonNode c = jsonTree().get("checkpoint");
        assertThat(c.get("format").asString()).isEqualTo("c2sp");
        assertThat(c.get("consistent").asBoolean()).isTrue();
        assertThat(c.get("size").asLong()).isEqualTo(3);
        // Without --key a C2SP checkpoint cannot be checked: a usage error, never "verified".
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", cp.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("needs --key");
        // Another key's verifier: nothing trusted signed it.
        String stranger =
                NoteSigner.generate("audit.example/host-1").verifierKey().encode();
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cp.toString(),
                        "--key",
                        stranger))
                .isEqualTo(1);
        assertThat(stdout()).contains("NOT consistent").contains("AUDIT_CHECKPOINT_SIGNATURE");
        // The checkpoint command's stdout form is the note itself.
        assertThat(run("audit", "checkpoint", "--data-dir", data.toString(), "--key", key.toString()))
                .isZero();
        assertThat(TlogCheckpoint.parse(SignedNote.parse(stdout().getBytes(StandardCharsets.UTF_8))
                        .text()))
                .isEqualTo(body);
    }

    @Test
    void rollbackOfLogAndHeadTogetherPassesPlainVerifyButFailsAgainstTheEarlierCheckpoint() throws Exception {
        Path old = tmp.resolve("state-at-3");
        saveState(old);
        append(3, 8);
        Path cp = checkpoint("cp-8");
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier))
                .as(this::stderr)
                .isZero();
        // Log and head replaced together by their older, internally valid copy.
        restoreState(old);
        assertThat(run("audit", "verify", "--data-dir", data.toString())).isZero();
        assertThat(stdout()).contains("state: OK").contains("committed records: 3");
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stdout()).contains("NOT consistent with the earlier checkpoint (8 records)");
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_MISMATCH").contains("truncated or rolled back");
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier,
                        "--json"))
                .isEqualTo(1);
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.audit-consistency/1");
        assertThat(doc.get("consistent").asBoolean()).isFalse();
        assertThat(doc.get("fromSize").asLong()).isEqualTo(8);
        assertThat(doc.get("toSize").asLong()).isEqualTo(3);
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stdout()).contains("AUDIT_CHECKPOINT_MISMATCH");
    }

    @Test
    void truncationIsCaughtWhetherTheHeadIsKeptRepairedOrDeletedToo() throws Exception {
        append(3, 6);
        Path cp = checkpoint("cp-6");
        Path full = tmp.resolve("full");
        saveState(full);
        Path log = data.resolve("audit/audit.log");
        // 1. The log cut inside its committed prefix, the head kept: the log is disabled.
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.setLength(f.length() - 100);
        }
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stdout()).contains("state: DISABLED");
        assertThat(stderr()).contains("AUDIT_DISABLED");
        // 2. ...then "repaired" into a fresh log: another log id, so another origin.
        assertThat(run("audit", "repair", "--data-dir", data.toString(), "--reason", "cover the tracks"))
                .isZero();
        assertThat(run("audit", "verify", "--data-dir", data.toString())).isZero();
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_MISMATCH").contains("origin");
        // 3. Both files deleted: an empty log, which holds fewer records than the checkpoint.
        restoreState(full);
        Files.delete(data.resolve("audit/audit.log"));
        Files.delete(data.resolve("audit/audit.head"));
        assertThat(run("audit", "verify", "--data-dir", data.toString())).isZero();
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_MISMATCH").contains("holds no records");
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cp.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
    }

    @Test
    void consistencyFromAnEarlierCheckpointWritesAWitnessRequestThatVerifiesOffline() throws Exception {
        Path early = checkpoint("cp-3");
        MerkleHash oldRoot = TlogCheckpoint.parse(
                        SignedNote.parse(Files.readAllBytes(early)).text())
                .root();
        append(3, 10);
        Path body = tmp.resolve("witness.body");
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        early.toString(),
                        "--key",
                        verifier,
                        "--out",
                        body.toString(),
                        "--sign-with",
                        key.toString(),
                        "--json"))
                .as(this::stderr)
                .isZero();
        JsonNode doc = jsonTree();
        assertThat(doc.get("consistent").asBoolean()).isTrue();
        assertThat(doc.get("fromSize").asLong()).isEqualTo(3);
        assertThat(doc.get("toSize").asLong()).isEqualTo(10);
        WitnessRequest w = WitnessRequest.parse(Files.readAllBytes(body));
        assertThat(w.oldSize()).isEqualTo(3);
        assertThat(w.verify(List.of(NoteVerifierKey.parse(verifier)), origin(), oldRoot)
                        .verified())
                .isTrue();
        assertThat(run(
                        "audit",
                        "consistency",
                        "--data-dir",
                        data.toString(),
                        "--from",
                        early.toString(),
                        "--key",
                        verifier,
                        "--out",
                        body.toString()))
                .isEqualTo(2);
    }

    @Test
    void anOutsideVerifierChecksAProofWithTheCheckpointTheKeyAndTheRecordBytesAlone() throws Exception {
        Path early = checkpoint("cp-3");
        append(3, 7);
        // A proof of record 2 against the earlier checkpoint the verifier already holds.
        Path proof = tmp.resolve("seq-2.proof");
        assertThat(run(
                        "audit",
                        "prove",
                        "--data-dir",
                        data.toString(),
                        "--seq",
                        "2",
                        "--checkpoint",
                        early.toString(),
                        "--out",
                        proof.toString()))
                .as(this::stderr)
                .isZero();
        TlogProof p = TlogProof.parse(Files.readAllBytes(proof));
        Path record = Files.write(tmp.resolve("seq-2.record"), p.extra().orElseThrow());
        // From here on nothing reads the log: move it away.
        Files.move(data.resolve("audit"), tmp.resolve("elsewhere"));
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        proof.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        originOf(early),
                        "--checkpoint",
                        early.toString(),
                        "--record",
                        record.toString()))
                .as(this::stderr)
                .isZero();
        assertThat(stdout()).contains("verified: record 2 is in").contains("record: APPROVE {");
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        proof.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        originOf(early),
                        "--json"))
                .isZero();
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.audit-verify-proof/1");
        assertThat(doc.get("verified").asBoolean()).isTrue();
        assertThat(doc.get("sequence").asLong()).isEqualTo(2);
        assertThat(doc.get("treeSize").asLong()).isEqualTo(3);
        // Another origin (another log, or a repaired one) is refused.
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        proof.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        "audit.example/host-1/00000000000000000000000000000000"))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_MISMATCH");
        // Other record bytes than the proof's entry are refused.
        byte[] other = p.extra().orElseThrow();
        other[20] ^= 1;
        Path forged = Files.write(tmp.resolve("forged.record"), other);
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        proof.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        originOf(early),
                        "--record",
                        forged.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_PROOF_INVALID");
        // A held checkpoint of another size does not vouch for this proof.
        Files.move(tmp.resolve("elsewhere"), data.resolve("audit"));
        Path later = checkpoint("cp-7");
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        proof.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        originOf(early),
                        "--checkpoint",
                        later.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_MISMATCH");
    }

    @Test
    void everyFlippedByteOfAProofFileIsRefused() throws Exception {
        Path proof = tmp.resolve("seq-3.proof");
        assertThat(run(
                        "audit",
                        "prove",
                        "--data-dir",
                        data.toString(),
                        "--seq",
                        "3",
                        "--key",
                        key.toString(),
                        "--out",
                        proof.toString()))
                .as(this::stderr)
                .isZero();
        byte[] good = Files.readAllBytes(proof);
        String origin = origin();
        assertThat(run("audit", "verify-proof", "--proof", proof.toString(), "--key", verifier, "--origin", origin))
                .isZero();
        Path bad = tmp.resolve("bad.proof");
        List<Integer> accepted = new ArrayList<>();
        for (int i = 0; i < good.length; i++) {
            byte[] b = good.clone();
            b[i] ^= 0x01;
            Files.write(bad, b);
            int code = run("audit", "verify-proof", "--proof", bad.toString(), "--key", verifier, "--origin", origin);
            if (code == 0) {
                accepted.add(i);
            }
            assertThat(stderr()).doesNotContain("Exception");
        }
        assertThat(accepted).as("byte positions whose flip still verified").isEmpty();
        // A hash of the path changed and re-encoded canonically: well-formed, and still refused.
        TlogProof p = TlogProof.parse(good);
        List<MerkleHash> path = new ArrayList<>(p.path());
        byte[] h = path.get(0).bytes();
        h[0] ^= 0x01;
        path.set(0, new MerkleHash(h));
        Files.write(bad, new TlogProof(p.extra(), p.index(), path, p.checkpoint()).encode());
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        bad.toString(),
                        "--key",
                        verifier,
                        "--origin",
                        origin,
                        "--json"))
                .isEqualTo(1);
        assertThat(jsonTree().get("verified").asBoolean()).isFalse();
        assertThat(stdout()).contains("AUDIT_PROOF_INVALID");
    }

    @Test
    void unknownSignersAreIgnoredAndAWitnessCosignatureIsAccepted() throws Exception {
        Path cp = checkpoint("cp-3");
        SignedNote note = SignedNote.parse(Files.readAllBytes(cp));
        NoteSigner witness = NoteSigner.generate("witness.example/w1");
        NoteSigner stranger = NoteSigner.generate("stranger.example");
        SignedNote cosigned = note.with(witness.sign(note.text())).with(stranger.sign(note.text()));
        Path cosignedFile = Files.write(tmp.resolve("cp-3.cosigned"), cosigned.encode());
        String witnessKey = witness.verifierKey().encode();
        // The log's key alone: the witness and the stranger are unknown signers, ignored.
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cosignedFile.toString(),
                        "--key",
                        verifier))
                .as(this::stdout)
                .isZero();
        // Log key and witness key: both signatures checked, accepted.
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        cosignedFile.toString(),
                        "--key",
                        verifier,
                        "--key",
                        witnessKey))
                .isZero();
        // A proof against the cosigned checkpoint convinces a verifier who trusts the witness only...
        Path proof = tmp.resolve("seq-1.proof");
        assertThat(run(
                        "audit",
                        "prove",
                        "--data-dir",
                        data.toString(),
                        "--seq",
                        "1",
                        "--checkpoint",
                        cosignedFile.toString(),
                        "--out",
                        proof.toString()))
                .isZero();
        assertThat(run("audit", "verify-proof", "--proof", proof.toString(), "--key", witnessKey, "--origin", origin()))
                .as(this::stderr)
                .isZero();
        assertThat(stdout())
                .contains("signed by: witness.example/w1")
                .contains("2 signature(s) by unknown keys ignored");
        // ...but not one who trusts neither key that signed.
        String nobody = NoteSigner.generate("nobody").verifierKey().encode();
        assertThat(run("audit", "verify-proof", "--proof", proof.toString(), "--key", nobody, "--origin", origin()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_SIGNATURE");
        // A forged "cosignature" under the witness's name and id fails when the witness key is trusted.
        SignedNote forged = note.with(new dev.skillgate.tlog.NoteSignature(
                witness.name(),
                witness.verifierKey().keyId(),
                stranger.sign(note.text()).signature()));
        Path forgedFile = Files.write(tmp.resolve("cp-3.forged"), forged.encode());
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        forgedFile.toString(),
                        "--key",
                        verifier,
                        "--key",
                        witnessKey))
                .isEqualTo(1);
        assertThat(stdout()).contains("AUDIT_CHECKPOINT_SIGNATURE");
    }

    @Test
    void badFilesGetStableCodesAndNoStackTraces() throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk"), "not a key\n");
        Files.setPosixFilePermissions(junk, PosixFilePermissions.fromString("rw-------"));
        assertThat(run("audit", "checkpoint", "--data-dir", data.toString(), "--key", junk.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_FORMAT").doesNotContain("Exception");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(run("audit", "checkpoint", "--data-dir", data.toString(), "--key", key.toString(), "--json"))
                .isEqualTo(1);
        assertThat(stdout()).contains("SIGNATURE_KEY_PERMISSIONS").contains("skillgate.audit-checkpoint/1");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        assertThat(run("audit", "verify-proof", "--proof", junk.toString(), "--key", verifier, "--origin", "o"))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_FORMAT").doesNotContain("Exception");
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        junk.toString(),
                        "--key",
                        verifier))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_FORMAT");
        assertThat(run(
                        "audit",
                        "verify-proof",
                        "--proof",
                        tmp.resolve("missing").toString(),
                        "--key",
                        verifier,
                        "--origin",
                        "o"))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_FOUND");
        assertThat(run("audit", "verify-proof", "--proof", junk.toString(), "--key", "not-a-key", "--origin", "o"))
                .isEqualTo(2);
        assertThat(run("audit", "prove", "--data-dir", data.toString(), "--seq", "0", "--key", key.toString()))
                .isEqualTo(2);
        assertThat(run("audit", "prove", "--data-dir", data.toString(), "--seq", "4", "--key", key.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_PROOF_INVALID").contains("not in the checkpoint's tree");
        assertThat(run("audit", "prove", "--data-dir", data.toString(), "--seq", "1"))
                .isEqualTo(2);
        // A disabled log yields no checkpoint.
        Path log = data.resolve("audit/audit.log");
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.seek(60);
            int b = f.read();
            f.seek(60);
            f.write(b ^ 4);
        }
        assertThat(run("audit", "checkpoint", "--data-dir", data.toString(), "--key", key.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_DISABLED");
    }

    /** {@code audit checkpoint} of this test's log with its key, plus {@code extra}. */
    private int checkpointRun(String... extra) {
        List<String> argv =
                new ArrayList<>(List.of("audit", "checkpoint", "--data-dir", data.toString(), "--key", key.toString()));
        argv.addAll(List.of(extra));
        return run(argv.toArray(String[]::new));
    }

    /** {@code audit prove} of record 2 against {@code cp}, plus {@code extra}. */
    private int proveRun(Path cp, String... extra) {
        List<String> argv = new ArrayList<>(
                List.of("audit", "prove", "--data-dir", data.toString(), "--seq", "2", "--checkpoint", cp.toString()));
        argv.addAll(List.of(extra));
        return run(argv.toArray(String[]::new));
    }

    /** The member names of the last JSON document, in order. */
    private List<String> members() {
        List<String> names = new ArrayList<>();
        jsonTree().propertyNames().forEach(names::add);
        return names;
    }

    @Test
    void checkpointAndProvePrintTheBytesOrASummaryOfTheFileOrOneJsonDocumentAndNeverReplaceAFileUnasked()
            throws Exception {
        // Standard output without --out is exactly the bytes --out writes (the same log, the same key).
        assertThat(checkpointRun()).as(this::stderr).isZero();
        String printed = stdout();
        Path cp = checkpoint("cp");
        TlogCheckpoint c =
                TlogCheckpoint.parse(SignedNote.parse(Files.readAllBytes(cp)).text());
        assertThat(SignedNote.parse(printed.getBytes(StandardCharsets.UTF_8)).text())
                .isEqualTo(c.text());
        assertThat(stdout().lines().toList())
                .containsExactly(
                        "checkpoint: origin " + c.origin() + ", 3 records, root "
                                + c.root().base64(),
                        "written to " + cp);
        byte[] held = Files.readAllBytes(cp);
        assertThat(checkpointRun("--out", cp.toString(), "--json")).isEqualTo(1);
        assertThat(jsonTree().get("schema").asString()).isEqualTo("skillgate.audit-checkpoint/1");
        assertThat(jsonTree().get("diagnostics")).hasSize(1);
        assertThat(Files.readAllBytes(cp)).isEqualTo(held);
        assertThat(checkpointRun("--out", cp.toString(), "--json", "--force"))
                .as(this::stderr)
                .isZero();
        assertThat(members()).containsExactly("schema", "origin", "size", "root", "verifierKey", "file", "checkpoint");
        assertThat(jsonTree().get("file").asString()).isEqualTo(cp.toString());
        assertThat(jsonTree().get("checkpoint").asString()).isEqualTo(Files.readString(cp, StandardCharsets.UTF_8));

        assertThat(proveRun(cp)).as(this::stderr).isZero();
        TlogProof raw = TlogProof.parse(stdout().getBytes(StandardCharsets.UTF_8));
        Path proof = tmp.resolve("proof");
        assertThat(proveRun(cp, "--out", proof.toString())).as(this::stderr).isZero();
        assertThat(Files.readAllBytes(proof)).isEqualTo(raw.encode());
        assertThat(stdout().lines().toList())
                .containsExactly(
                        "inclusion proof of record 2 in 3 records ("
                                + raw.path().size() + " hashes), origin " + c.origin(),
                        "written to " + proof);
        assertThat(proveRun(cp, "--out", proof.toString())).isEqualTo(1);
        assertThat(stderr()).startsWith("skillgate audit: ");
        assertThat(proveRun(cp, "--json")).as(this::stderr).isZero();
        assertThat(members())
                .containsExactly("schema", "sequence", "index", "origin", "treeSize", "root", "hashes", "proof");
    }

    private static String originOf(Path checkpoint) throws Exception {
        return TlogCheckpoint.parse(
                        SignedNote.parse(Files.readAllBytes(checkpoint)).text())
                .origin();
    }
}
