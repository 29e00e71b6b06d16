package dev.skillgate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.workflow.KeyProvider;
import dev.skillgate.workflow.WorkflowDefinition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal over the PostgreSQL store: what a database writer changes or a wrong key reads is refused with its code. */
class PostgresJournalTest {
    @TempDir
    Path dir;

    private static WorkflowDefinition definition() {
        return new WorkflowDefinition(
                WorkflowId.random(),
                RunId.random(),
                AgentId.of("agent-1"),
                Sha256Digest.hash("ws".getBytes(StandardCharsets.UTF_8)),
                "/work/space",
                List.of(new WorkflowDefinition.Step(
                        SkillName.of("hello-world"),
                        Revision.parse(Sha256Digest.hash("r".getBytes(StandardCharsets.UTF_8))
                                .toString()),
                        Optional.empty())),
                Sha256Digest.hash("plan".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aByteChangedInTheDatabaseARecordMovedAndAWrongKeyAreRefused() throws Exception {
        DataSource ds = Pg.migrated();
        KeyProvider key = KeyProvider.keyFile(dir.resolve("a/key"));
        WorkflowJournal j = WorkflowJournal.builder(new PostgresWorkflowStore(ds), key)
                .renewLeases(false)
                .build();
        WorkflowDefinition def = definition();
        WorkflowId id = def.workflow();
        j.begin(def).orElseThrow();
        j.recordStart(id, 0, "{\"name\":\"Ada\"}".getBytes(StandardCharsets.UTF_8))
                .orElseThrow();
        assertThat(j.recover(id).isSuccess()).isTrue();

        WorkflowJournal wrong = WorkflowJournal.builder(
                        new PostgresWorkflowStore(ds), KeyProvider.keyFile(dir.resolve("b/key")))
                .renewLeases(false)
                .build();
        assertThat(wrong.recover(id).code()).contains(ErrorCode.WORKFLOW_KEY_MISMATCH);

        // A database writer flips one byte near the end of record 1's ciphertext.
        Pg.sql(
                ds,
                "UPDATE skillgate_workflow_record SET sealed = set_byte(sealed, length(sealed) - 20, "
                        + "get_byte(sealed, length(sealed) - 20) # 1) WHERE workflow_id = '" + id
                        + "' AND sequence = 1");
        assertThat(j.recover(id).code()).contains(ErrorCode.WORKFLOW_RECORD_TAMPERED);
        assertThat(j.recover(id).value()).isEmpty();

        // A record copied from another workflow (valid ciphertext, wrong place) is refused too.
        WorkflowDefinition other = definition();
        j.begin(other).orElseThrow();
        j.recordStart(other.workflow(), 0, "{\"name\":\"Eve\"}".getBytes(StandardCharsets.UTF_8))
                .orElseThrow();
        Pg.sql(
                ds,
                "UPDATE skillgate_workflow_record SET sealed = (SELECT sealed FROM skillgate_workflow_record "
                        + "WHERE workflow_id = '" + other.workflow() + "' AND sequence = 1) WHERE workflow_id = '" + id
                        + "' AND sequence = 1");
        assertThat(j.recover(id).code()).contains(ErrorCode.WORKFLOW_RECORD_TAMPERED);

        // A deleted record is a gap the store reports.
        Pg.sql(
                ds,
                "DELETE FROM skillgate_workflow_record WHERE workflow_id = '" + other.workflow()
                        + "' AND sequence = 1");
        assertThat(j.recover(other.workflow()).code()).contains(ErrorCode.WORKFLOW_STORE_CORRUPT);
    }
}
