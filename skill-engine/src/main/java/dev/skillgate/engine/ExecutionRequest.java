package dev.skillgate.engine;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * One request to run a skill's script: the live run and agent it belongs to, the skill's name, the
 * exact invocation bytes, the workspace and, optionally, the caller's own deadline.
 *
 * <p>The invocation bytes are copied and later checked exactly as given (their SHA-256 is what
 * consent binds to); nothing re-serialises them. The workspace becomes the script's working
 * directory; it is not a boundary — a consented script can reach every file the host user can.
 * A caller deadline does not shorten the skill's own timeout: when it passes, the engine cancels
 * the run and delivers an outcome at once, while the process tree keeps being cleaned up in the
 * background (see {@link PendingExecution#settlement()}).
 *
 * @param run the live run (consent is per run)
 * @param agent the agent on whose behalf the skill runs
 * @param skill the skill's name, as the catalog lists it
 * @param invocation the exact invocation JSON bytes (more than 64 KiB is refused when executed)
 * @param workspace the script's working directory
 * @param callerDeadline how long the caller waits for an outcome, when set (1 ms to 1 hour)
 * @param agentContext what the agent offers, checked against the skill's trust contract; when
 *     empty, the gate's default context applies
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record ExecutionRequest(
        RunId run,
        AgentId agent,
        SkillName skill,
        byte[] invocation,
        Path workspace,
        Optional<Duration> callerDeadline,
        Optional<AgentContext> agentContext) {

    /** Longest caller deadline accepted. */
    public static final Duration MAX_CALLER_DEADLINE = Duration.ofHours(1);

    public ExecutionRequest {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(invocation, "invocation");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(callerDeadline, "callerDeadline");
        Objects.requireNonNull(agentContext, "agentContext");
        // An oversized invocation is not an exception: the execution is refused with JSON_TOO_LARGE.
        invocation = invocation.clone();
        if (callerDeadline.isPresent()) {
            Duration d = callerDeadline.get();
            if (d.isNegative() || d.isZero() || d.compareTo(MAX_CALLER_DEADLINE) > 0) {
                throw new IllegalArgumentException("a caller deadline is 1 ms to 1 hour");
            }
        }
    }

    /** A request with the invocation given as JSON text (encoded as UTF-8) and no caller deadline. */
    public static ExecutionRequest of(RunId run, AgentId agent, String skill, String invocationJson, Path workspace) {
        return of(run, agent, skill, invocationJson.getBytes(StandardCharsets.UTF_8), workspace);
    }

    /**
     * A request with the exact invocation bytes and no caller deadline.
     *
     * @throws dev.skillgate.model.InvalidValueException with the broken rule's {@code NAME_*} code when
     *     {@code skill} is not a valid skill name ({@link SkillName#check} answers with a value)
     */
    public static ExecutionRequest of(RunId run, AgentId agent, String skill, byte[] invocation, Path workspace) {
        return new ExecutionRequest(
                run, agent, SkillName.of(skill), invocation, workspace, Optional.empty(), Optional.empty());
    }

    /** This request with a caller deadline. */
    public ExecutionRequest withCallerDeadline(Duration deadline) {
        return new ExecutionRequest(run, agent, skill, invocation, workspace, Optional.of(deadline), agentContext);
    }

    /** This request with an agent context for the skill's trust contract. */
    public ExecutionRequest withAgentContext(AgentContext context) {
        return new ExecutionRequest(run, agent, skill, invocation, workspace, callerDeadline, Optional.of(context));
    }

    /** A copy of the invocation bytes. */
    @Override
    public byte[] invocation() {
        return invocation.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecutionRequest r
                && run.equals(r.run)
                && agent.equals(r.agent)
                && skill.equals(r.skill)
                && Arrays.equals(invocation, r.invocation)
                && workspace.equals(r.workspace)
                && callerDeadline.equals(r.callerDeadline)
                && agentContext.equals(r.agentContext);
    }

    @Override
    public int hashCode() {
        return Objects.hash(run, agent, skill, Arrays.hashCode(invocation), workspace, callerDeadline);
    }

    /** Never prints the invocation. */
    @Override
    public String toString() {
        return "ExecutionRequest[run=" + run + ", agent=" + agent + ", skill=" + skill + ", invocation="
                + invocation.length + "B]";
    }
}
