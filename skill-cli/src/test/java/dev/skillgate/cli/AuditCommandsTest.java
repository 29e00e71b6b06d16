package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** {@code skillgate audit verify|list} and {@code skillgate trust list|revoke} on real logs. */
class AuditCommandsTest extends CommandTestSupport {
    @TempDir
    Path data;

    private PromptSkillScope skill;
    private ExecutionScope receipt;

    @BeforeEach
    void seed() {
        skill = new PromptSkillScope(
                AgentId.of("claude-code"),
                SkillName.of("pdf-fill"),
                Optional.of(Sha256Digest.hash("contract".getBytes(StandardCharsets.UTF_8))),
                Revision.parse(Sha256Digest.hash("rev".getBytes(StandardCharsets.UTF_8))
                        .toString()));
        receipt = new ExecutionScope(
                skill.revision(),
                AgentId.of("claude-code"),
                Sha256Digest.hash("workspace".getBytes(StandardCharsets.UTF_8)),
                new Timeout(30_000),
                new OutputLimit(65_536),
                UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
                Instant.parse("2026-03-01T10:00:00Z"));
        try (AuditLog log = AuditLog.open(data.resolve("audit"))) {
            assertThat(log.approve(skill).isCommitted()).isTrue();
            assertThat(log.approve(receipt).isCommitted()).isTrue();
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> json() {
        return JsonMapper.builder().build().readValue(stdout(), Map.class);
    }

    @Test
    void verifyReportsAHealthyLog() {
        assertThat(run("audit", "verify", "--data-dir", data.toString()))
                .as(() -> stderr())
                .isZero();
        assertThat(stdout()).contains("state: OK").contains("committed records: 2");
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--json"))
                .isZero();
        Map<String, Object> doc = json();
        assertThat(doc)
                .containsEntry("verified", true)
                .containsEntry("state", "OK")
                .containsEntry("committedSequence", 2);
    }

    @Test
    void verifyNamesTheFirstBadRecordAndExitsOne() throws Exception {
        Path log = data.resolve("audit/audit.log");
        byte[] bytes = Files.readAllBytes(log);
        int second = 32 + 49 + java.nio.ByteBuffer.wrap(bytes, 32, 4).getInt();
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "rw")) {
            f.seek(second + 30);
            f.write(bytes[second + 30] ^ 4);
        }
        assertThat(run("audit", "verify", "--data-dir", data.toString())).isEqualTo(1);
        assertThat(stdout())
                .contains("state: DISABLED")
                .contains("first bad record: seq 2")
                .contains("CRC mismatch");
        assertThat(stderr()).contains("disabled").doesNotContain("Exception");
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--json"))
                .isEqualTo(1);
        assertThat(json()).containsEntry("firstBadSequence", 2).containsEntry("verified", false);
        // list shows the verified prefix and exits 1; trust list suspends every approval.
        assertThat(run("audit", "list", "--data-dir", data.toString())).isEqualTo(1);
        assertThat(stdout()).contains("1  ").contains("approve").doesNotContain("execution receipt");
        assertThat(run("trust", "list", "--data-dir", data.toString())).isEqualTo(1);
        assertThat(stdout()).contains("SUSPENDED");
        assertThat(run(
                        "trust",
                        "revoke",
                        "--data-dir",
                        data.toString(),
                        "--scope",
                        skill.id().toString()))
                .isEqualTo(3);
    }

    @Test
    void verifyChecksASignedCheckpoint() throws Exception {
        CheckpointKey key = CheckpointKey.generate();
        Path cpFile = data.resolve("held-elsewhere.checkpoint");
        byte[] logBefore;
        byte[] headBefore;
        logBefore = Files.readAllBytes(data.resolve("audit/audit.log"));
        headBefore = Files.readAllBytes(data.resolve("audit/audit.head"));
        try (AuditLog log = AuditLog.open(data.resolve("audit"))) {
            log.revoke(skill);
            Checkpoint cp = log.checkpoint(key).orElseThrow();
            Files.write(cpFile, cp.encode());
        }
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", cpFile.toString()))
                .isZero();
        assertThat(stdout())
                .contains("checkpoint: consistent (3 records, signed by key "
                        + key.publicKey().keyId());
        // Roll back log and head together: locally valid, but not consistent with the checkpoint.
        Files.write(data.resolve("audit/audit.log"), logBefore);
        Files.write(data.resolve("audit/audit.head"), headBefore);
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", cpFile.toString(), "--json"))
                .isEqualTo(1);
        Map<String, Object> doc = json();
        assertThat(doc).containsEntry("state", "OK").containsEntry("verified", false);
        assertThat(doc.get("checkpoint").toString()).contains("AUDIT_CHECKPOINT_MISMATCH");
        Files.writeString(cpFile, "not a checkpoint\n");
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", cpFile.toString()))
                .isEqualTo(1);
        assertThat(stderr()).contains("AUDIT_CHECKPOINT_FORMAT");
        // A checkpoint file that is not there is a usage error (SPEC §13), not a failed check.
        assertThat(run(
                        "audit",
                        "verify",
                        "--data-dir",
                        data.toString(),
                        "--checkpoint",
                        data.resolve("missing").toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_FOUND").doesNotContain("Exception");
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 30, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    @org.junit.jupiter.api.condition.EnabledOnOs(org.junit.jupiter.api.condition.OS.LINUX)
    void aCheckpointThatIsAFifoOrALinkIsRefusedWithoutBeingOpened() throws Exception {
        Path fifo = data.resolve("checkpoint.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        // Opening a FIFO for reading blocks until a writer comes: the command must not open it.
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", fifo.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_NOT_REGULAR");
        Path link = Files.createSymbolicLink(data.resolve("checkpoint.link"), data.resolve("audit/audit.head"));
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", link.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("READ_LINK");
    }

    @Test
    void aDataDirectoryThatDoesNotExistIsAUsageErrorNeverAVerifiedLog() {
        Path typo = data.resolve("no-such-data-dir");
        for (String[] command : new String[][] {{"audit", "verify"}, {"audit", "list"}, {"trust", "list"}}) {
            assertThat(run(command[0], command[1], "--data-dir", typo.toString(), "--json"))
                    .as(String.join(" ", command))
                    .isEqualTo(2);
            assertThat(stdout()).as("no document claims a verified log").isEmpty();
            assertThat(stderr()).contains("--data-dir does not exist");
        }
        assertThat(run(
                        "trust",
                        "revoke",
                        "--data-dir",
                        typo.toString(),
                        "--scope",
                        skill.id().toString()))
                .isEqualTo(2);
        Path file = data.resolve("audit/audit.head");
        assertThat(run("audit", "verify", "--data-dir", file.toString())).isEqualTo(2);
        assertThat(stderr()).contains("--data-dir is not a directory");
        assertThat(typo).doesNotExist();
    }

    @Test
    void aDataDirectoryThisUserCannotSearchIsNeverAnEmptyVerifiedLog() throws Exception {
        // Root looks into every directory, so the refusal is only observable for an ordinary user.
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root bypasses directory permissions");
        Files.setPosixFilePermissions(data, java.util.Set.of());
        try {
            for (String[] command : new String[][] {{"audit", "verify"}, {"audit", "list"}, {"trust", "list"}}) {
                assertThat(run(command[0], command[1], "--data-dir", data.toString()))
                        .as(String.join(" ", command))
                        .isEqualTo(1);
                assertThat(stderr()).contains("READ_IO");
                assertThat(stdout()).doesNotContain("state: OK");
            }
        } finally {
            Files.setPosixFilePermissions(data, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void everyJsonDocumentNamesItsSchema() {
        assertThat(run("audit", "verify", "--data-dir", data.toString(), "--json"))
                .isZero();
        assertThat(json()).containsEntry("schema", "skillgate.audit-verify/1");
        assertThat(run("audit", "list", "--data-dir", data.toString(), "--json"))
                .isZero();
        assertThat(json()).containsEntry("schema", "skillgate.audit-list/1");
        assertThat(run("trust", "list", "--data-dir", data.toString(), "--json"))
                .isZero();
        assertThat(json()).containsEntry("schema", "skillgate.trust-list/1");
        assertThat(run(
                        "trust",
                        "revoke",
                        "--data-dir",
                        data.toString(),
                        "--scope",
                        skill.id().toString(),
                        "--json"))
                .isZero();
        assertThat(json()).containsEntry("schema", "skillgate.trust-revoke/1").containsEntry("revoked", true);
    }

    @Test
    void listPrintsRecordsWithoutPaths() {
        assertThat(run("audit", "list", "--data-dir", data.toString())).isZero();
        assertThat(stdout())
                .contains("approve prompt-skill pdf-fill for agent claude-code")
                .contains("execution receipt 123e4567-e89b-12d3-a456-426614174000")
                .doesNotContain(data.toString());
        assertThat(run("audit", "list", "--data-dir", data.toString(), "--json"))
                .isZero();
        List<?> records = (List<?>) json().get("records");
        assertThat(records).hasSize(2);
        assertThat(records.get(0).toString()).contains("event=approve").contains("kind=prompt-skill");
    }

    @Test
    void trustListAndRevoke() {
        assertThat(run("trust", "list", "--data-dir", data.toString())).isZero();
        assertThat(stdout()).contains("TRUSTED  " + skill.id()).contains("TRUSTED  " + receipt.id());
        assertThat(run(
                        "trust",
                        "revoke",
                        "--data-dir",
                        data.toString(),
                        "--scope",
                        skill.id().toString()))
                .isZero();
        assertThat(stdout()).contains("revoked scope " + skill.id() + " at seq 3");
        assertThat(run(
                        "trust",
                        "revoke",
                        "--data-dir",
                        data.toString(),
                        "--scope",
                        skill.id().toString()))
                .isZero();
        assertThat(stdout()).contains("already revoked");
        assertThat(run("trust", "list", "--data-dir", data.toString(), "--json"))
                .isZero();
        assertThat(json().get("decisions").toString())
                .contains("status=REVOKED")
                .contains("status=TRUSTED");
        String unknown = Sha256Digest.hash(new byte[] {9}).toString();
        assertThat(run("trust", "revoke", "--data-dir", data.toString(), "--scope", unknown))
                .isEqualTo(1);
        assertThat(stderr()).contains("TRUST_NOT_FOUND");
        assertThat(run("trust", "revoke", "--data-dir", data.resolve("nowhere").toString(), "--scope", unknown))
                .isEqualTo(2);
        assertThat(data.resolve("nowhere")).doesNotExist();
        Path noLog = data.resolve("no-log");
        assertThat(noLog.toFile().mkdir()).isTrue();
        assertThat(run("trust", "revoke", "--data-dir", noLog.toString(), "--scope", unknown))
                .isEqualTo(1);
        assertThat(stderr()).contains("TRUST_NOT_FOUND");
        assertThat(noLog.resolve("audit")).doesNotExist();
    }

    @Test
    void revokeIsRefusedWhileAnotherHandleHoldsTheLog() {
        try (AuditLog host = AuditLog.open(data.resolve("audit"))) {
            assertThat(run(
                            "trust",
                            "revoke",
                            "--data-dir",
                            data.toString(),
                            "--scope",
                            skill.id().toString()))
                    .isEqualTo(3);
            assertThat(stderr()).contains("AUDIT_LOCKED");
            assertThat(host.isTrusted(skill)).isTrue();
        }
    }

    @Test
    void usageErrors() {
        assertThat(run("audit")).isEqualTo(2);
        assertThat(run("audit", "verify")).isEqualTo(2);
        assertThat(stderr()).contains("--data-dir is required");
        assertThat(run("audit", "frob", "--data-dir", data.toString())).isEqualTo(2);
        assertThat(run("audit", "list", "--data-dir", data.toString(), "--checkpoint", "x"))
                .isEqualTo(2);
        assertThat(run("trust", "revoke", "--data-dir", data.toString())).isEqualTo(2);
        assertThat(run("trust", "revoke", "--data-dir", data.toString(), "--scope", "SHA256:AB"))
                .isEqualTo(2);
        assertThat(run("trust", "list", "--data-dir", data.toString(), "--bogus"))
                .isEqualTo(2);
        assertThat(stderr()).doesNotContain("Exception");
        assertThat(run("audit", "--help")).isZero();
        assertThat(stdout()).contains("skillgate audit verify --data-dir DIR [--checkpoint FILE] [--json]");
        assertThat(run("--help")).isZero();
        assertThat(stdout()).contains("audit").contains("trust");
    }

    @Test
    void verifyOfAMissingLogIsEmptyAndCreatesNothing() {
        Path empty = data.resolve("empty");
        assertThat(empty.toFile().mkdir()).isTrue();
        assertThat(run("audit", "verify", "--data-dir", empty.toString())).isZero();
        assertThat(stdout()).contains("committed records: 0");
        assertThat(empty.resolve("audit")).doesNotExist();
    }
}
