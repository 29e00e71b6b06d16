package dev.skillgate.workflow;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The host-verified, bounded plan of one durable workflow, as it was approved: run, agent, workspace
 * (its digest and real path), 1-64 steps {skill, exact revision, optional exact invocation digest}
 * and the plan digest the audit log names it by.
 *
 * <p>It is a description, not a grant: storing, reading or recovering it authorises nothing. A step
 * runs only with run-scoped consent given in the live process (a fresh one after any restart or
 * takeover).
 *
 * @param workflow the workflow's id
 * @param run the run
 * @param agent the agent
 * @param workspaceDigest the workspace identity's digest
 * @param workspacePath the workspace's real path (display and re-resolution; not authority)
 * @param steps the steps, in plan order
 * @param planDigest the approved plan's digest
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record WorkflowDefinition(
        WorkflowId workflow,
        RunId run,
        AgentId agent,
        Sha256Digest workspaceDigest,
        String workspacePath,
        List<Step> steps,
        Sha256Digest planDigest) {
    /** The most steps a definition has. */
    public static final int MAX_STEPS = 64;

    public WorkflowDefinition {
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(workspaceDigest, "workspaceDigest");
        Objects.requireNonNull(workspacePath, "workspacePath");
        Objects.requireNonNull(planDigest, "planDigest");
        steps = List.copyOf(steps);
        if (steps.isEmpty() || steps.size() > MAX_STEPS) {
            throw new IllegalArgumentException("a workflow has 1-" + MAX_STEPS + " steps");
        }
        if (workspacePath.isEmpty() || workspacePath.length() > 4096 || workspacePath.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a workspace path is 1-4096 characters without NUL");
        }
    }

    /**
     * One planned step.
     *
     * @param skill the skill
     * @param revision its exact revision
     * @param invocationDigest the exact input's digest, when the plan fixes it
     */
    public record Step(SkillName skill, Revision revision, Optional<Sha256Digest> invocationDigest) {
        public Step {
            Objects.requireNonNull(skill, "skill");
            Objects.requireNonNull(revision, "revision");
            Objects.requireNonNull(invocationDigest, "invocationDigest");
        }
    }
}
