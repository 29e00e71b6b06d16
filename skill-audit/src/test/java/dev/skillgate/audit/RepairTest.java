package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The explicit, audited operator repair that ends a disabled state. */
class RepairTest {
    @TempDir
    Path tmp;

    @Test
    void repairKeepsEvidenceStartsANewAuditedLogAndTrustsNothing() throws Exception {
        Path dir = tmp.resolve("audit");
        String oldLogId;
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
            log.approve(Fixtures.prompt(2));
            oldLogId = log.status().logId().orElseThrow();
            assertThat(((AppendResult.Refused) log.repair("not needed"))
                            .reason()
                            .code())
                    .isEqualTo(ErrorCode.AUDIT_REPAIR_NOT_NEEDED);
        }
        Fixtures.flipBit(
                dir.resolve("audit.log"),
                Fixtures.frameOffsets(Files.readAllBytes(dir.resolve("audit.log")))
                                .get(1)
                        + 20,
                0);
        byte[] damagedLog = Files.readAllBytes(dir.resolve("audit.log"));
        byte[] oldHead = Files.readAllBytes(dir.resolve("audit.head"));
        try (AuditLog reader = AuditLog.openReadOnly(dir)) {
            AppendResult r = reader.repair("from a read-only handle");
            assertThat(((AppendResult.Refused) r).reason().code()).isEqualTo(ErrorCode.AUDIT_DISABLED);
        }
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
            assertThat(log.status().firstBadSequence()).hasValue(2);
            AppendResult r = log.repair("operator: bit rot in record 2");
            assertThat(r).isInstanceOf(AppendResult.Committed.class);
            assertThat(((AppendResult.Committed) r).sequence()).isEqualTo(1);
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().logId()).isPresent().get().isNotEqualTo(oldLogId);
            assertThat(log.isTrusted(Fixtures.prompt(1)))
                    .as("every approval must be made again")
                    .isFalse();
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
        }
        Path evidence;
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().startsWith("audit.corrupt-"))
                    .toList();
            assertThat(found).hasSize(1);
            evidence = found.get(0);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(evidence)))
                .isEqualTo("rwx------");
        assertThat(Files.readAllBytes(evidence.resolve("audit.log"))).isEqualTo(damagedLog);
        assertThat(Files.readAllBytes(evidence.resolve("audit.head"))).isEqualTo(oldHead);
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            List<AuditRecord> records = log.records(0, 10);
            assertThat(records).hasSize(2);
            AuditEvent.Repaired repaired = (AuditEvent.Repaired) records.get(0).event();
            assertThat(repaired.reason()).isEqualTo("operator: bit rot in record 2");
            assertThat(repaired.cause()).isEqualTo(ErrorCode.AUDIT_CORRUPT);
            assertThat(repaired.firstBadSequence()).hasValue(2);
            assertThat(repaired.previousLogId()).contains(oldLogId);
            assertThat(repaired.previousLog()).contains(Sha256Digest.hash(damagedLog));
            assertThat(repaired.previousHead()).contains(Sha256Digest.hash(oldHead));
            assertThat(repaired.evidence()).isEqualTo(evidence.getFileName().toString());
            assertThat(log.isTrusted(Fixtures.prompt(1))).isTrue();
        }
    }

    @Test
    void aLogWithoutAHeadOrWithSymlinkedFilesIsRepairedToo() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
        }
        Files.delete(dir.resolve("audit.head"));
        Path elsewhere = tmp.resolve("elsewhere");
        Files.move(dir.resolve("audit.log"), elsewhere);
        Files.createSymbolicLink(dir.resolve("audit.log"), elsewhere);
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
            assertThat(log.repair("links found").isCommitted()).isTrue();
            AuditEvent.Repaired r =
                    (AuditEvent.Repaired) log.records(0, 1).get(0).event();
            assertThat(r.previousHead()).isEmpty();
            assertThat(r.previousLog())
                    .as("a link is moved as evidence, never followed")
                    .isEmpty();
        }
        assertThat(Files.isSymbolicLink(dir.resolve("audit.log"))).isFalse();
        assertThat(elsewhere).exists();
    }
}
