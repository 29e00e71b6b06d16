package dev.skillgate.workflow;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Definitions and inputs for workflow tests. */
final class Fixtures {
    private Fixtures() {}

    static Revision revision(String seed) {
        return Revision.parse(
                Sha256Digest.hash(seed.getBytes(StandardCharsets.UTF_8)).toString());
    }

    static WorkflowDefinition definition(int steps) {
        List<WorkflowDefinition.Step> list = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            list.add(new WorkflowDefinition.Step(SkillName.of("step-" + i), revision("rev " + i), Optional.empty()));
        }
        return new WorkflowDefinition(
                WorkflowId.random(),
                RunId.of("run-" + System.nanoTime()),
                AgentId.of("agent-1"),
                Sha256Digest.hash("workspace".getBytes(StandardCharsets.UTF_8)),
                "/tmp/work space/ünïcode",
                list,
                Sha256Digest.hash("plan".getBytes(StandardCharsets.UTF_8)));
    }

    static byte[] input(int i) {
        return ("{\"step\":" + i + ",\"text\":\"päyload\"}").getBytes(StandardCharsets.UTF_8);
    }
}
