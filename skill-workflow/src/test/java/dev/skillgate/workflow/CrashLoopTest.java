package dev.skillgate.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety of the embedded store: 100 loops of a writer child JVM killed with SIGKILL at a
 * random moment while it appends. After every kill, every record that was acknowledged (its append
 * returned and the child printed it) is there and opens, and nothing torn is accepted: every workflow
 * the store lists verifies completely, or the test fails.
 */
class CrashLoopTest {
    @TempDir
    Path dir;

    @Test
    void hundredKillsLoseNoAcknowledgedRecordAndAcceptNoTornOne() throws Exception {
        Random random = new Random(0x5EED_C4A5L);
        Map<WorkflowId, Integer> acknowledged = new HashMap<>();
        int loops = Integer.getInteger("skillgate.crashloops", 100);
        int killedMidWrite = 0;
        for (int loop = 0; loop < loops; loop++) {
            Process child = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xshare:auto",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            System.getProperty("java.class.path"),
                            CrashWriter.class.getName(),
                            dir.toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("ready")) {
                record(acknowledged, line);
            }
            assertThat(line).as("loop %d: the writer started", loop).isEqualTo("ready");
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20 + random.nextInt(400));
            while (System.nanoTime() < until) {
                if (out.ready()) {
                    line = out.readLine();
                    if (line == null) {
                        break;
                    }
                    record(acknowledged, line);
                } else {
                    Thread.sleep(1);
                }
            }
            child.toHandle().destroyForcibly(); // SIGKILL; Process.destroyForcibly would close our end of its stdout
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            // Whatever it printed before it died was acknowledged.
            while ((line = out.readLine()) != null) {
                record(acknowledged, line);
            }
            if (acknowledged.size() > 0) {
                killedMidWrite++;
            }
            verify(acknowledged, loop);
        }
        assertThat(killedMidWrite).isPositive();
        assertThat(acknowledged).hasSizeGreaterThan(loops / 2);
    }

    private static void record(Map<WorkflowId, Integer> acknowledged, String line) {
        if (!line.startsWith("ack ")) {
            return;
        }
        String[] p = line.split(" ");
        if (p.length != 3) {
            return; // a line cut by the kill was never acknowledged to us
        }
        acknowledged.merge(WorkflowId.parse(p[1]), Integer.parseInt(p[2]), Math::max);
    }

    private void verify(Map<WorkflowId, Integer> acknowledged, int loop) {
        try (WorkflowJournal reader = WorkflowJournal.builder(
                        WorkflowStore.embedded(dir.resolve("workflows")),
                        KeyProvider.keyFile(dir.resolve("keys/workflow.key")))
                .instance(InstanceId.of("checker"))
                .renewLeases(false)
                .build()) {
            List<StoredWorkflow> all = reader.list().orElseThrow();
            for (StoredWorkflow w : all) {
                WorkflowResult<Recovery> r = reader.recover(w.id());
                assertThat(r.failure())
                        .as("loop %d, workflow %s opens completely", loop, w.id())
                        .isEmpty();
            }
            for (Map.Entry<WorkflowId, Integer> e : acknowledged.entrySet()) {
                WorkflowResult<Recovery> r = reader.recover(e.getKey());
                assertThat(r.failure())
                        .as("loop %d: acknowledged workflow %s", loop, e.getKey())
                        .isEmpty();
                assertThat(r.orElseThrow().head().records())
                        .as("loop %d: records of %s (acknowledged up to %d)", loop, e.getKey(), e.getValue())
                        .isGreaterThan(e.getValue());
            }
        }
    }
}
