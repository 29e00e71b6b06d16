package dev.skillgate.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkflowJournalTest {
    @TempDir
    Path dir;

    private WorkflowJournal journal(String instance, String host, Optional<ProcessIdentity> process) {
        return WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")),
                        KeyProvider.keyFile(dir.resolve("keys/workflow.key")))
                .instance(InstanceId.of(instance))
                .hostId(host)
                .processIdentity(process)
                .lease(Duration.ofSeconds(1))
                .renewLeases(false)
                .build();
    }

    private WorkflowJournal local(String instance) {
        return journal(instance, "host-a", ProcessIdentity.current());
    }

    @Test
    void recordsRoundTripAndStepStatesFollowTheRecords() {
        WorkflowJournal j = local("one");
        WorkflowDefinition def = Fixtures.definition(4);
        WorkflowId id = def.workflow();
        assertThat(j.begin(def).orElseThrow().fencingToken()).isEqualTo(1);
        assertThat(j.recordStart(id, 0, Fixtures.input(0)).isSuccess()).isTrue();
        byte[] out = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
        assertThat(j.recordSettlement(
                                id, 0, ExecutionStatus.SUCCEEDED, CleanupStatus.PROVEN, List.of(), Optional.of(out))
                        .isSuccess())
                .isTrue();
        assertThat(j.recordStart(id, 1, Fixtures.input(1)).isSuccess()).isTrue();
        assertThat(j.recordSettlement(
                                id,
                                1,
                                ExecutionStatus.CLEANUP_UNKNOWN,
                                CleanupStatus.UNKNOWN,
                                List.of(ErrorCode.CLEANUP_UNKNOWN),
                                Optional.empty())
                        .isSuccess())
                .isTrue();
        assertThat(j.recordStart(id, 2, Fixtures.input(2)).isSuccess()).isTrue();

        Recovery live = j.recover(id).orElseThrow();
        assertThat(live.definition()).isEqualTo(def);
        assertThat(live.steps())
                .extracting(StepView::state)
                .containsExactly(StepState.DONE, StepState.UNKNOWN, StepState.RUNNING, StepState.NOT_STARTED);
        assertThat(live.steps().get(0).settled().orElseThrow().checkedOutput().orElseThrow())
                .isEqualTo(out);
        assertThat(live.steps().get(2).started().orElseThrow().input()).isEqualTo(Fixtures.input(2));

        // Another reader (a restart) sees the unsettled start as unknown, never as running.
        Recovery other = local("two").recover(id).orElseThrow();
        assertThat(other.steps())
                .extracting(StepView::state)
                .containsExactly(StepState.DONE, StepState.UNKNOWN, StepState.UNKNOWN, StepState.NOT_STARTED);
        assertThat(other.remaining()).extracting(StepView::index).containsExactly(3);
        assertThat(other.unknown()).extracting(StepView::index).containsExactly(1, 2);
    }

    @Test
    void onlyValidTransitionsAreWrittenAndCompletedNeedsEveryStepDone() {
        WorkflowJournal j = local("one");
        WorkflowDefinition def = Fixtures.definition(2);
        WorkflowId id = def.workflow();
        j.begin(def).orElseThrow();
        assertThat(j.recordSettlement(
                                id, 0, ExecutionStatus.SUCCEEDED, CleanupStatus.PROVEN, List.of(), Optional.empty())
                        .code())
                .contains(ErrorCode.WORKFLOW_INVALID);
        assertThat(j.recordStart(id, 5, Fixtures.input(5)).code()).contains(ErrorCode.WORKFLOW_INVALID);
        assertThat(j.recordStart(id, 0, Fixtures.input(0)).isSuccess()).isTrue();
        assertThat(j.recordStart(id, 0, Fixtures.input(0)).code()).contains(ErrorCode.WORKFLOW_INVALID);
        assertThat(j.decide(id, 0, OperatorDecision.EFFECT_ABSENT, "").code()).contains(ErrorCode.WORKFLOW_INVALID);
        assertThat(j.end(id, EndReason.COMPLETED).code()).contains(ErrorCode.WORKFLOW_INVALID);
        assertThat(j.end(id, EndReason.CANCELLED).isSuccess()).isTrue();
        assertThat(j.recordStart(id, 1, Fixtures.input(1)).code()).contains(ErrorCode.WORKFLOW_FENCED);
        assertThat(local("two").takeOver(id).code()).contains(ErrorCode.WORKFLOW_TERMINAL);
        assertThat(j.recover(id).orElseThrow().ended()).contains(EndReason.CANCELLED);
    }

    @Test
    void aLiveLocalOwnerIsNeverTakenOverAndAProvenDeadOneIsAndItsLateWriteIsFenced() throws Exception {
        Process owner = new ProcessBuilder("sleep", "60").start();
        try {
            ProcessIdentity identity = new ProcessIdentity(owner.pid(), awaitToken(owner.pid()));
            WorkflowJournal first = journal("first", "host-a", Optional.of(identity));
            WorkflowDefinition def = Fixtures.definition(3);
            WorkflowId id = def.workflow();
            first.begin(def).orElseThrow();
            first.recordStart(id, 0, Fixtures.input(0)).orElseThrow();
            WorkflowJournal second = local("second");

            Thread.sleep(1500); // the lease (1 s) has ended: a live local process still wins
            assertThat(second.takeOver(id).code()).contains(ErrorCode.WORKFLOW_OWNER_ALIVE);

            owner.destroyForcibly();
            owner.waitFor(10, TimeUnit.SECONDS);
            Recovery taken = second.takeOver(id).orElseThrow();
            assertThat(taken.head().fencingToken()).isEqualTo(2);
            assertThat(taken.head().owner().instance()).isEqualTo(InstanceId.of("second"));
            assertThat(taken.steps())
                    .extracting(StepView::state)
                    .containsExactly(StepState.UNKNOWN, StepState.NOT_STARTED, StepState.NOT_STARTED);

            // The first owner's journal still holds token 1: the store rejects its write.
            assertThat(first.recordSettlement(
                                    id, 0, ExecutionStatus.SUCCEEDED, CleanupStatus.PROVEN, List.of(), Optional.empty())
                            .code())
                    .contains(ErrorCode.WORKFLOW_FENCED);
            // The unknown step is never replayed: it waits for the operator.
            assertThat(second.recordStart(id, 0, Fixtures.input(0)).code()).contains(ErrorCode.WORKFLOW_INVALID);
            assertThat(second.decide(id, 0, OperatorDecision.EFFECT_ABSENT, "checked the target: nothing written")
                            .isSuccess())
                    .isTrue();
            assertThat(second.recover(id).orElseThrow().remaining())
                    .extracting(StepView::index)
                    .containsExactly(0, 1, 2);
        } finally {
            owner.destroyForcibly();
        }
    }

    @Test
    void aRemoteOwnerIsTakenOverOnlyAfterItsLeaseEnded() throws Exception {
        WorkflowJournal remote = journal("remote", "host-b", ProcessIdentity.current());
        WorkflowDefinition def = Fixtures.definition(1);
        WorkflowId id = def.workflow();
        remote.begin(def).orElseThrow();
        WorkflowJournal here = local("here");
        assertThat(here.takeOver(id).code()).contains(ErrorCode.WORKFLOW_OWNER_ALIVE);
        remote.renewLeases();
        assertThat(here.takeOver(id).code()).contains(ErrorCode.WORKFLOW_OWNER_ALIVE);
        Thread.sleep(1300);
        assertThat(here.takeOver(id).orElseThrow().head().fencingToken()).isEqualTo(2);
        remote.renewLeases(); // fenced: the renewal is rejected and the journal forgets the lease
        assertThat(remote.owns(id)).isFalse();
        assertThat(remote.recordStart(id, 0, Fixtures.input(0)).code()).contains(ErrorCode.WORKFLOW_FENCED);
    }

    @Test
    void aWrongKeyIsRefusedWithItsCodeAndAMissingOrUnsafeKeyFileToo() throws Exception {
        WorkflowJournal j = local("one");
        WorkflowDefinition def = Fixtures.definition(1);
        j.begin(def).orElseThrow();
        WorkflowJournal wrong = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")), KeyProvider.keyFile(dir.resolve("other/key")))
                .renewLeases(false)
                .build();
        assertThat(wrong.recover(def.workflow()).code()).contains(ErrorCode.WORKFLOW_KEY_MISMATCH);
        assertThat(wrong.recover(def.workflow()).value()).isEmpty();

        Path key = dir.resolve("keys/workflow.key");
        assertThat(Files.getPosixFilePermissions(key)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r-----"));
        assertThat(local("fresh").recover(def.workflow()).code()).contains(ErrorCode.WORKFLOW_KEY_UNAVAILABLE);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        Files.write(key, new byte[31]);
        assertThat(local("fresh").recover(def.workflow()).code()).contains(ErrorCode.WORKFLOW_KEY_UNAVAILABLE);
        Path link = dir.resolve("keys/link.key");
        Files.createSymbolicLink(link, key);
        WorkflowJournal linked = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")), KeyProvider.keyFile(link))
                .renewLeases(false)
                .build();
        assertThat(linked.begin(Fixtures.definition(1)).code()).contains(ErrorCode.WORKFLOW_KEY_UNAVAILABLE);
    }

    @Test
    void everyFlippedByteOfASealedRecordIsRefusedAndNothingOfItIsReturned() {
        WorkflowStore real = WorkflowStore.embedded(dir.resolve("workflows"));
        KeyProvider keys = KeyProvider.keyFile(dir.resolve("keys/workflow.key"));
        WorkflowJournal writer =
                WorkflowJournal.builder(real, keys).renewLeases(false).build();
        WorkflowDefinition def = Fixtures.definition(2);
        WorkflowId id = def.workflow();
        writer.begin(def).orElseThrow();
        writer.recordStart(id, 0, Fixtures.input(0)).orElseThrow();
        int length = FlippingStore.sealedLength(real, id, 1);
        for (int i = 0; i < length; i++) {
            for (int mask : new int[] {0x01, 0x80}) {
                FlippingStore flipping = new FlippingStore(real, 1, i, mask);
                WorkflowJournal reader = WorkflowJournal.builder(flipping, keys)
                        .renewLeases(false)
                        .build();
                WorkflowResult<Recovery> r = reader.recover(id);
                assertThat(r.value()).as("byte %d mask %x", i, mask).isEmpty();
                assertThat(r.code().orElseThrow())
                        .as("byte %d", i)
                        .isIn(Set.of(
                                ErrorCode.WORKFLOW_RECORD_TAMPERED,
                                ErrorCode.WORKFLOW_KEY_MISMATCH,
                                ErrorCode.WORKFLOW_SCHEMA_UNKNOWN));
                if (i >= 5 && i < 7 || i >= 4 + 1 + 2 + 16 + 4 + 8 + 1 + 5 + 1 + 22) {
                    // the schema field when authenticated, and everything after the key id
                    assertThat(r.code()).as("byte %d", i).contains(ErrorCode.WORKFLOW_RECORD_TAMPERED);
                }
            }
        }
    }

    @Test
    void anUnknownSchemaVersionIsRefusedNotGuessed() {
        WorkflowStore real = WorkflowStore.embedded(dir.resolve("workflows"));
        KeyProvider keys = KeyProvider.keyFile(dir.resolve("keys/workflow.key"));
        WorkflowJournal writer =
                WorkflowJournal.builder(real, keys).renewLeases(false).build();
        WorkflowDefinition def = Fixtures.definition(1);
        writer.begin(def).orElseThrow();
        // byte 4 is the envelope format; an unknown format is refused before anything is opened
        WorkflowResult<Recovery> r = WorkflowJournal.builder(new FlippingStore(real, 0, 4, 0x02), keys)
                .renewLeases(false)
                .build()
                .recover(def.workflow());
        assertThat(r.code()).contains(ErrorCode.WORKFLOW_SCHEMA_UNKNOWN);
    }

    @Test
    void recordsPerWorkflowAreBoundedAndTheEndAlwaysFits() {
        WorkflowJournal j = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")), KeyProvider.keyFile(dir.resolve("k/key")))
                .maxRecords(16)
                .renewLeases(false)
                .build();
        WorkflowDefinition def = Fixtures.definition(10);
        WorkflowId id = def.workflow();
        j.begin(def).orElseThrow();
        int step = 0;
        while (true) {
            WorkflowResult<Lease> r = j.recordStart(id, step, Fixtures.input(step));
            if (!r.isSuccess()) {
                assertThat(r.code()).contains(ErrorCode.WORKFLOW_RECORD_LIMIT);
                break;
            }
            r = j.recordSettlement(id, step, ExecutionStatus.FAILED, CleanupStatus.PROVEN, List.of(), Optional.empty());
            if (!r.isSuccess()) {
                assertThat(r.code()).contains(ErrorCode.WORKFLOW_RECORD_LIMIT);
                break;
            }
            step++;
        }
        assertThat(j.recover(id).orElseThrow().head().records()).isEqualTo(15);
        assertThat(j.end(id, EndReason.CANCELLED).isSuccess()).isTrue();
        assertThat(j.recover(id).orElseThrow().head().records()).isEqualTo(16);
    }

    @Test
    void retentionRemovesOnlyEndedWorkflowsOlderThanThePeriod() throws Exception {
        WorkflowJournal j = local("one");
        WorkflowDefinition ended = Fixtures.definition(1);
        WorkflowDefinition open = Fixtures.definition(1);
        j.begin(ended).orElseThrow();
        j.begin(open).orElseThrow();
        j.end(ended.workflow(), EndReason.CANCELLED).orElseThrow();
        assertThat(j.purge(Duration.ofHours(1)).orElseThrow().removed()).isEmpty();
        Thread.sleep(20);
        RetentionReport report = j.purge(Duration.ZERO).orElseThrow();
        assertThat(report.removed()).extracting(StoredWorkflow::id).containsExactly(ended.workflow());
        assertThat(j.recover(ended.workflow()).code()).contains(ErrorCode.WORKFLOW_NOT_FOUND);
        assertThat(j.recover(open.workflow()).isSuccess()).isTrue();
        assertThat(j.list().orElseThrow()).extracting(StoredWorkflow::id).containsExactly(open.workflow());
    }

    static String awaitToken(long pid) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            Optional<String> t = dev.skillgate.workflow.internal.Procs.startToken(pid);
            if (t.isPresent()) {
                return t.get();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no start token for " + pid);
    }
}
