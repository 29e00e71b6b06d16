package dev.skillgate.engine;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.PortableSupervisor;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link ResolveTest}: executes one skill under the portable supervisor (opted
 * in), which can never prove cleanup, so the run ends {@code CLEANUP_UNKNOWN} with its staging
 * retained; prints what happened and exits, leaving the directory to a later process.
 *
 * <p>Arguments: data directory, skill root, workspace, node path, node version, run id.
 */
public final class CleanupUnknownProbe {
    private CleanupUnknownProbe() {}

    public static void main(String[] args) {
        Path data = Path.of(args[0]);
        RunId run = RunId.of(args[5]);
        try (SkillGate gate = SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(Path.of(args[1]))
                .nodeRuntime(NodeRuntime.pinned(Path.of(args[3]), args[4]))
                .approvalChannel(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                .supervisor(PortableSupervisor.create())
                .allowUnprovenCleanup()
                .build()) {
            ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                    run, AgentId.of("agent-1"), "hello-world", "{\"name\":\"Ada\"}", Path.of(args[2])));
            System.out.println("PID " + ProcessHandle.current().pid());
            System.out.println("STATUS " + env.status());
            System.out.println("CODES " + env.errorCodes());
            System.out.println(
                    "REVISION " + env.revision().map(Object::toString).orElse("-"));
            System.out.println("STAGING "
                    + env.cleanup().retainedStaging().map(Path::toString).orElse("-"));
        }
        System.out.println("DONE");
        System.out.flush();
        System.exit(0);
    }
}
