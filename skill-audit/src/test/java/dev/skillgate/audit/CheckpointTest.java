package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signed checkpoints: format, Ed25519 (Bouncy Castle), and truncation/rollback detection. */
class CheckpointTest {
    @TempDir
    Path tmp;

    @Test
    void rfc8032TestVector1() {
        byte[] seed = HexFormat.of().parseHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
        CheckpointKey key = CheckpointKey.fromSeed(seed);
        assertThat(HexFormat.of().formatHex(key.publicKey().bytes()))
                .isEqualTo("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
        byte[] sig = dev.skillgate.audit.internal.Ed25519.sign(seed, new byte[0]);
        assertThat(HexFormat.of().formatHex(sig))
                .isEqualTo(
                        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
    }

    private static Checkpoint sample(CheckpointKey key) {
        return Checkpoint.sign(
                "0123456789abcdef0123456789abcdef",
                42,
                12_345,
                Sha256Digest.hash("tip".getBytes(StandardCharsets.UTF_8)),
                Instant.parse("2026-03-01T10:00:00.123Z"),
                key);
    }

    @Test
    void encodesParsesAndVerifiesAndTheJdkAgrees() throws Exception {
        CheckpointKey key = CheckpointKey.generate();
        Checkpoint cp = sample(key);
        assertThat(cp.signatureValid()).isTrue();
        byte[] text = cp.encode();
        assertThat(new String(text, StandardCharsets.US_ASCII))
                .startsWith(
                        "skillgate-audit-checkpoint/v1\nlog 0123456789abcdef0123456789abcdef\nsize 42\nlength 12345\ntip ");
        Checkpoint parsed = Checkpoint.parse(text);
        assertThat(parsed).isEqualTo(cp);
        assertThat(parsed.signatureValid()).isTrue();

        // Interoperability: the JDK's own Ed25519 verifies Bouncy Castle's signature.
        String body = new String(text, StandardCharsets.US_ASCII);
        byte[] message = body.substring(0, body.indexOf("signature ")).getBytes(StandardCharsets.US_ASCII);
        byte[] x509 = HexFormat.of()
                .parseHex("302a300506032b6570032100"
                        + HexFormat.of().formatHex(key.publicKey().bytes()));
        Signature jdk = Signature.getInstance("Ed25519");
        jdk.initVerify(KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(x509)));
        jdk.update(message);
        assertThat(jdk.verify(Base64.getDecoder().decode(cp.signature()))).isTrue();
    }

    @Test
    void anyChangedFieldBreaksTheSignature() {
        CheckpointKey key = CheckpointKey.generate();
        Checkpoint cp = sample(key);
        assertThat(new Checkpoint(cp.logId(), 41, cp.length(), cp.tip(), cp.time(), cp.key(), cp.signature())
                        .signatureValid())
                .isFalse();
        assertThat(new Checkpoint(cp.logId(), cp.size(), cp.length() + 1, cp.tip(), cp.time(), cp.key(), cp.signature())
                        .signatureValid())
                .isFalse();
        assertThat(new Checkpoint(
                                cp.logId(),
                                cp.size(),
                                cp.length(),
                                cp.tip(),
                                cp.time().plusMillis(1),
                                cp.key(),
                                cp.signature())
                        .signatureValid())
                .isFalse();
        assertThat(new Checkpoint(
                                cp.logId(),
                                cp.size(),
                                cp.length(),
                                cp.tip(),
                                cp.time(),
                                CheckpointKey.generate().publicKey(),
                                cp.signature())
                        .signatureValid())
                .isFalse();
        byte[] zeroKey = new byte[32];
        assertThat(new Checkpoint(
                                cp.logId(),
                                cp.size(),
                                cp.length(),
                                cp.tip(),
                                cp.time(),
                                CheckpointPublicKey.of(zeroKey),
                                cp.signature())
                        .signatureValid())
                .as("a small-order key is simply invalid, never an exception")
                .isFalse();
    }

    @Test
    void malformedCheckpointsAreRejectedWithTheirCode() {
        byte[] good = sample(CheckpointKey.generate()).encode();
        String text = new String(good, StandardCharsets.US_ASCII);
        for (String bad : new String[] {
            "",
            text.replace("size 42", "size 042"),
            text.replace("size 42", "size -1"),
            text.replace("\n", "\r\n"),
            text.substring(0, text.length() - 1),
            text + "extra\n",
            text.replace("skillgate-audit-checkpoint/v1", "skillgate-audit-checkpoint/v2"),
            text.replace("time 2026-03-01T10:00:00.123Z", "time 2026-03-01T10:00:00.1230Z"),
            text.replace("log 0123", "log 0A23"),
            text.replace("signature ", "signature x"),
        }) {
            assertThatThrownBy(() -> Checkpoint.parse(bad.getBytes(StandardCharsets.US_ASCII)))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            InvalidValueException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.AUDIT_CHECKPOINT_FORMAT));
        }
        assertThatThrownBy(() -> Checkpoint.parse(new byte[Checkpoint.MAX_SIZE + 1]))
                .isInstanceOf(InvalidValueException.class);
    }

    @Test
    void aCheckpointDetectsTruncationRollbackRewriteAndReplacement() throws Exception {
        Path dir = tmp.resolve("audit");
        CheckpointKey key = CheckpointKey.generate();
        Checkpoint atTwo;
        Checkpoint empty;
        byte[] logAtOne;
        byte[] headAtOne;
        try (AuditLog log = Fixtures.open(dir)) {
            empty = log.checkpoint(key).orElseThrow();
            log.approve(Fixtures.prompt(1));
            logAtOne = Files.readAllBytes(dir.resolve("audit.log"));
            headAtOne = Files.readAllBytes(dir.resolve("audit.head"));
            log.approve(Fixtures.prompt(2));
            atTwo = log.checkpoint(key).orElseThrow();
            assertThat(atTwo.size()).isEqualTo(2);
            assertThat(log.verify(atTwo, Optional.of(key.publicKey())).consistent())
                    .isTrue();
            log.approve(Fixtures.prompt(3));
            // Growth after a checkpoint is fine: the log extends it.
            CheckpointVerification later = log.verify(atTwo, Optional.of(key.publicKey()));
            assertThat(later.consistent()).isTrue();
            assertThat(later.keyId()).isEqualTo(key.publicKey().keyId());
            assertThat(log.verify(empty, Optional.empty()).consistent()).isTrue();
            CheckpointVerification wrongKey =
                    log.verify(atTwo, Optional.of(CheckpointKey.generate().publicKey()));
            assertThat(wrongKey.consistent()).isFalse();
            assertThat(wrongKey.diagnostics())
                    .extracting(Diagnostic::code)
                    .containsExactly(ErrorCode.AUDIT_CHECKPOINT_SIGNATURE);
        }
        // Roll log and head back together to before the checkpoint: locally valid, caught here.
        Files.write(dir.resolve("audit.log"), logAtOne);
        Files.write(dir.resolve("audit.head"), headAtOne);
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            CheckpointVerification v = log.verify(atTwo, Optional.of(key.publicKey()));
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics())
                    .extracting(Diagnostic::code)
                    .containsExactly(ErrorCode.AUDIT_CHECKPOINT_MISMATCH);
            // Re-grow a different history to the same size: caught as a rewrite.
            log.approve(Fixtures.prompt(99));
            CheckpointVerification fork = log.verify(atTwo, Optional.of(key.publicKey()));
            assertThat(fork.consistent()).isFalse();
            assertThat(fork.diagnostics().get(0).message()).contains("differs from the checkpoint");
        }
        // A checkpoint made from a forged signature over the same fields never verifies.
        Checkpoint forged = new Checkpoint(
                atTwo.logId(),
                atTwo.size(),
                atTwo.length(),
                atTwo.tip(),
                atTwo.time(),
                atTwo.key(),
                sample(CheckpointKey.generate()).signature());
        try (AuditLog log = AuditLog.openReadOnly(dir)) {
            assertThat(log.verify(forged, Optional.empty()).diagnostics())
                    .extracting(Diagnostic::code)
                    .contains(ErrorCode.AUDIT_CHECKPOINT_SIGNATURE);
        }
    }

    @Test
    void aDisabledLogYieldsNoCheckpointAndFailsVerification() throws Exception {
        Path dir = tmp.resolve("audit");
        CheckpointKey key = CheckpointKey.generate();
        Checkpoint cp;
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
            cp = log.checkpoint(key).orElseThrow();
        }
        Fixtures.flipBit(dir.resolve("audit.log"), 60, 1);
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.checkpoint(key)).isEmpty();
            CheckpointVerification v = log.verify(cp, Optional.empty());
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_DISABLED);
            // After the operator's repair the old checkpoint names another log.
            assertThat(log.repair("bit rot found by audit verify").isCommitted())
                    .isTrue();
            CheckpointVerification after = log.verify(cp, Optional.empty());
            assertThat(after.diagnostics().get(0).message()).contains("is for log " + cp.logId());
        }
    }

    @Test
    void keyFilesArePrivateAndReload() throws Exception {
        Path file = tmp.resolve("checkpoint.key");
        CheckpointKey created = CheckpointKey.loadOrCreate(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        CheckpointKey loaded = CheckpointKey.loadOrCreate(file);
        assertThat(loaded.publicKey()).isEqualTo(created.publicKey());
        assertThat(loaded.toString())
                .isEqualTo("CheckpointKey[" + loaded.publicKey().keyId() + "]");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> CheckpointKey.loadOrCreate(file)).isInstanceOf(InvalidValueException.class);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(file, "garbage");
        assertThatThrownBy(() -> CheckpointKey.loadOrCreate(file)).isInstanceOf(InvalidValueException.class);
    }
}
