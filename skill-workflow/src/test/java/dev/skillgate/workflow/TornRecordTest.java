package dev.skillgate.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a torn write (power loss mid-write) leaves in the embedded store, made by hand: a cut or
 * damaged last frame is never returned and is cut off by the next append; damage before a valid
 * frame is {@code WORKFLOW_STORE_CORRUPT}. (SIGKILL alone rarely tears a write; {@link CrashLoopTest}
 * covers acknowledgement.)
 */
class TornRecordTest {
    @TempDir
    Path dir;

    private WorkflowJournal journal() {
        return WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("wf")), KeyProvider.keyFile(dir.resolve("k/key")))
                .instance(InstanceId.of("writer"))
                .hostId("lost-machine")
                .lease(java.time.Duration.ofSeconds(1))
                .renewLeases(false)
                .build();
    }

    private Path records(WorkflowId id) {
        return dir.resolve("wf").resolve(id + ".records");
    }

    @Test
    void aCutLastFrameIsIgnoredAndCutOffByTheNextAppend() throws IOException {
        WorkflowJournal j = journal();
        WorkflowDefinition def = Fixtures.definition(3);
        WorkflowId id = def.workflow();
        j.begin(def).orElseThrow();
        j.recordStart(id, 0, Fixtures.input(0)).orElseThrow();
        long size = Files.size(records(id));
        j.recordSettlement(
                        id,
                        0,
                        dev.skillgate.model.ExecutionStatus.FAILED,
                        dev.skillgate.model.CleanupStatus.PROVEN,
                        java.util.List.of(),
                        java.util.Optional.empty())
                .orElseThrow();
        long full = Files.size(records(id));
        for (long cut = size + 1; cut < full; cut += Math.max(1, (full - size) / 7)) {
            try (FileChannel ch = FileChannel.open(records(id), StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            // The torn settlement is not returned; the step reads as started, never as settled.
            WorkflowJournal reader = journal();
            Recovery r = reader.recover(id).orElseThrow();
            assertThat(r.head().records()).as("cut at %d", cut).isEqualTo(2);
            assertThat(r.steps().get(0).state()).isEqualTo(StepState.UNKNOWN);
        }
        // Torn garbage after the last valid frame; a new owner (the lost machine's lease has ended)
        // takes over, and its first append cuts the torn bytes and continues cleanly.
        Files.write(records(id), new byte[] {'S', 'G', 'W', 'R', 0, 0}, StandardOpenOption.APPEND);
        sleep(1200);
        WorkflowJournal next = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("wf")), KeyProvider.keyFile(dir.resolve("k/key")))
                .instance(InstanceId.of("next"))
                .renewLeases(false)
                .build();
        Recovery taken = next.takeOver(id).orElseThrow();
        assertThat(taken.unknown()).extracting(StepView::index).containsExactly(0);
        next.decide(id, 0, OperatorDecision.EFFECT_ABSENT, "checked").orElseThrow();
        Recovery after = journal().recover(id).orElseThrow();
        assertThat(after.head().records()).isEqualTo(3);
        assertThat(after.steps().get(0).state()).isEqualTo(StepState.NOT_RUN);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void damageBeforeAValidFrameIsCorruptionNotATornTail() throws IOException {
        WorkflowJournal j = journal();
        WorkflowDefinition def = Fixtures.definition(3);
        WorkflowId id = def.workflow();
        j.begin(def).orElseThrow();
        long first = Files.size(records(id));
        j.recordStart(id, 0, Fixtures.input(0)).orElseThrow();
        j.recordStart(id, 1, Fixtures.input(1)).orElseThrow();
        byte[] b = Files.readAllBytes(records(id));
        b[(int) first + 40] ^= 0x10; // inside record 1's payload; record 2 is intact after it
        Files.write(records(id), b);
        assertThat(journal().recover(id).code()).contains(ErrorCode.WORKFLOW_STORE_CORRUPT);
        assertThat(j.recordStart(id, 2, Fixtures.input(2)).code()).contains(ErrorCode.WORKFLOW_STORE_CORRUPT);
    }
}
