package dev.skillgate.project;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What the human is asked to approve for a project run: the exact argv of every step, the
 * execution-input digests, the runtime, the limits and what is and is not enforced. An approval binds
 * {@link #digest()} (the plan's digest) and nothing else: any drift is refused before a step runs.
 *
 * @param run the run
 * @param agent the agent that asked
 * @param plan the plan
 * @param id this request's id: an approval answers exactly this request ({@link #approve()}, decision
 *     0760); one for another request is refused with {@code BINDING_MISMATCH}
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectApprovalRequest(RunId run, AgentId agent, ProjectPlan plan, ProposalId id) {

    /** The warning every rendering must show. */
    public static final String WARNING =
            "This is not a sandbox: the project's code and its dependencies run as you, with"
                    + " your files and network. Generated tests and test counts are untrusted evidence.";

    /** What is enforced, as shown. */
    public static final List<String> ENFORCED = List.of(
            "exact argv with the pinned node; no shell, npm, npx, .bin shim or lifecycle hook",
            "fixed environment PATH, HOME, TMPDIR, LANG (job-local HOME and TMPDIR); nothing inherited",
            "a private read-only copy of the inspected sources and dependency tree; inputs re-verified before each step",
            "stdout 256 KiB and stderr 16 KiB per step (16 MiB in all at most); one 180 s wall deadline with the cleanup reserve inside it",
            "each step's process tree ended and proven gone (a detached descendant fails the run)");

    /** What is not enforced, as shown. */
    public static final List<String> NOT_ENFORCED =
            List.of("CPU, memory and process-count ceilings", "file-system and network access (host-user rights)");

    public ProjectApprovalRequest {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(id, "id");
    }

    /** A request with a fresh id. */
    public ProjectApprovalRequest(RunId run, AgentId agent, ProjectPlan plan) {
        this(run, agent, plan, ProposalId.random());
    }

    /** The human's approval of exactly this request. */
    public ApprovalDecision approve() {
        return ApprovalDecision.approve(id);
    }

    /** The human's refusal of this request, with their reason. */
    public ApprovalDecision deny(String reason) {
        return ApprovalDecision.deny(reason);
    }

    /** The digest an approval binds. */
    public Sha256Digest digest() {
        return plan.digest();
    }

    /** The request as plain text, every field included (the console rendering). */
    public String text() {
        StringBuilder b = new StringBuilder();
        b.append("Run project ").append(plan.project()).append('\n');
        b.append("  run: ")
                .append(run.value())
                .append("  agent: ")
                .append(agent)
                .append('\n');
        b.append("  approval digest: ").append(digest()).append('\n');
        b.append("  runtime: ")
                .append(plan.runtime().executable())
                .append(' ')
                .append(plan.runtime().version());
        plan.runtime().binaryDigest().ifPresent(d -> b.append(" ").append(d));
        b.append('\n');
        b.append("  working directory: ")
                .append(ProjectPlan.WORKDIR_PLACEHOLDER)
                .append('\n');
        b.append("  output directory: ").append(plan.outputDirectory().value()).append('\n');
        for (int i = 0; i < plan.steps().size(); i++) {
            ProjectStep s = plan.steps().get(i);
            b.append("  step ")
                    .append(i + 1)
                    .append(": ")
                    .append(s.script())
                    .append(" = \"")
                    .append(s.source())
                    .append("\"\n");
            b.append("    argv: ").append(String.join(" ", plan.argv().get(i))).append('\n');
            for (PortablePath g : s.generatedTests()) {
                b.append("    generated test, validated after the build: ")
                        .append(g.value())
                        .append('\n');
            }
        }
        ProjectSnapshot.InputDigests in = plan.inputs();
        b.append("  inputs: ").append(in.combined()).append('\n');
        b.append("    package.json ").append(in.packageJson()).append('\n');
        b.append("    package-lock.json ")
                .append(in.lockfile().map(Sha256Digest::toString).orElse("(none)"))
                .append('\n');
        for (Map.Entry<PortablePath, Sha256Digest> e : in.configs().entrySet()) {
            b.append("    ")
                    .append(e.getKey().value())
                    .append(' ')
                    .append(e.getValue())
                    .append('\n');
        }
        b.append("    sources ").append(in.sources()).append('\n');
        b.append("    dependency tree ").append(in.dependencies()).append('\n');
        b.append("    .bin links ").append(in.binLinks()).append('\n');
        b.append("  enforced:\n");
        ENFORCED.forEach(e -> b.append("    - ").append(e).append('\n'));
        b.append("  not enforced:\n");
        NOT_ENFORCED.forEach(e -> b.append("    - ").append(e).append('\n'));
        b.append("  ").append(WARNING).append('\n');
        return b.toString();
    }
}
