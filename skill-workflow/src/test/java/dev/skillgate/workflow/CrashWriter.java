package dev.skillgate.workflow;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ExecutionStatus;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A writer child JVM for the crash loop: takes over the unfinished workflows of earlier (killed)
 * writers where it can, then appends step records as fast as it can, printing {@code ack <id> <seq>}
 * after each append returned. Killed with SIGKILL at a random moment by the test.
 */
public final class CrashWriter {
    private CrashWriter() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        try (WorkflowJournal j = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")),
                        KeyProvider.keyFile(dir.resolve("keys/workflow.key")))
                .instance(InstanceId.of("writer"))
                .lease(Duration.ofSeconds(60))
                .renewLeases(false)
                .build()) {
            // Every earlier writer is dead (killed and reaped): its workflows can be taken over by proof.
            for (StoredWorkflow w : j.list().orElseThrow()) {
                if (!w.ended() && j.takeOver(w.id()).isSuccess()) {
                    Recovery r = j.recover(w.id()).orElseThrow();
                    for (StepView s : r.unknown()) {
                        j.decide(w.id(), s.index(), OperatorDecision.EFFECT_ABSENT, "crash loop")
                                .orElseThrow();
                    }
                    j.end(w.id(), EndReason.CANCELLED).orElseThrow();
                    out.println("ack " + w.id() + " "
                            + (r.head().records() + r.unknown().size()));
                }
            }
            out.println("ready");
            byte[] big = new byte[48 * 1024];
            Arrays.fill(big, (byte) 'x');
            while (true) {
                WorkflowDefinition def = Fixtures.definition(64);
                WorkflowId id = def.workflow();
                j.begin(def).orElseThrow();
                out.println("ack " + id + " 0");
                int seq = 1;
                for (int step = 0; step < 64; step++) {
                    byte[] input = step % 3 == 0 ? big : Fixtures.input(step);
                    j.recordStart(id, step, input).orElseThrow();
                    out.println("ack " + id + " " + seq++);
                    j.recordSettlement(
                                    id,
                                    step,
                                    ExecutionStatus.SUCCEEDED,
                                    CleanupStatus.PROVEN,
                                    List.of(),
                                    Optional.of(input))
                            .orElseThrow();
                    out.println("ack " + id + " " + seq++);
                }
                j.end(id, EndReason.COMPLETED).orElseThrow();
                out.println("ack " + id + " " + seq);
            }
        }
    }
}
