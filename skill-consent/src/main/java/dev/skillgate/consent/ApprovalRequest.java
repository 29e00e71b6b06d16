package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Everything a human needs to approve one exact launch (SPEC §8): the artifact (revision, files
 * with sizes, entrypoint source on demand), the pretty-printed invocation and its digest, the exact
 * argv, the workspace, the runtime, the limits, what is enforced, and the full-trust warning.
 *
 * <p>The constructor checks that the artifact's revision and the invocation's digest are the ones
 * in the binding, so the request cannot show one thing while the ledger binds another. The request
 * is the only place the invocation text lives: the ledger keeps the binding (digest only), and
 * drops its reference to the request once the decision is recorded. Approval is not isolation: the
 * warning says so, and {@link #enforcement()} always says {@code isolation: none}.
 *
 * @param proposal the proposal this request asks about
 * @param skill the skill
 * @param binding exactly what approval covers
 * @param artifact the captured artifact
 * @param invocation the rendered input and its digest
 * @param argv the exact argument vector that will be started (no shell), 1-{@value #MAX_ARGS}
 *     entries
 * @param enforcement what is and is not enforced
 * @param createdAt wall-clock creation time (display)
 * @param expiresAt wall-clock expiry (display; the ledger enforces the window monotonically)
 * @param location where the skill was found and warnings about its name (decision 0767); empty when
 *     the caller does not say
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record ApprovalRequest(
        ProposalId proposal,
        SkillName skill,
        ConsentBinding binding,
        ArtifactDescription artifact,
        InvocationPreview invocation,
        List<String> argv,
        Enforcement enforcement,
        Instant createdAt,
        Instant expiresAt,
        Optional<SkillLocation> location) {

    /** The fixed full-trust warning every approval surface must show. */
    public static final String FULL_TRUST_WARNING = "runs as your user with your files and network; not a sandbox";

    /** Most argv entries. */
    public static final int MAX_ARGS = 64;

    /** Longest argv entry, in UTF-16 units. */
    public static final int MAX_ARG_CHARS = 8192;

    /** A request without a location. */
    public ApprovalRequest(
            ProposalId proposal,
            SkillName skill,
            ConsentBinding binding,
            ArtifactDescription artifact,
            InvocationPreview invocation,
            List<String> argv,
            Enforcement enforcement,
            Instant createdAt,
            Instant expiresAt) {
        this(proposal, skill, binding, artifact, invocation, argv, enforcement, createdAt, expiresAt, Optional.empty());
    }

    public ApprovalRequest {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(proposal, "proposal");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        Objects.requireNonNull(artifact, "artifact");
        Objects.requireNonNull(invocation, "invocation");
        argv = List.copyOf(argv);
        Objects.requireNonNull(enforcement, "enforcement");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (!artifact.revision().equals(binding.revision())) {
            throw new IllegalArgumentException("the artifact's revision differs from the binding's");
        }
        if (!invocation.digest().equals(binding.invocationDigest())) {
            throw new IllegalArgumentException("the invocation digest differs from the binding's");
        }
        if (argv.isEmpty() || argv.size() > MAX_ARGS) {
            throw new IllegalArgumentException("argv has 1-" + MAX_ARGS + " entries");
        }
        for (String arg : argv) {
            if (arg.length() > MAX_ARG_CHARS || arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("an argv entry is too long or contains NUL");
            }
        }
    }

    /**
     * A request for a proposal the ledger returned, taking its id, skill, binding and display times
     * from the snapshot.
     */
    public static ApprovalRequest forProposal(
            ProposalSnapshot proposal,
            ArtifactDescription artifact,
            InvocationPreview invocation,
            List<String> argv,
            Enforcement enforcement) {
        return forProposal(proposal, artifact, invocation, argv, enforcement, Optional.empty());
    }

    /** {@link #forProposal(ProposalSnapshot, ArtifactDescription, InvocationPreview, List, Enforcement)} with a location. */
    public static ApprovalRequest forProposal(
            ProposalSnapshot proposal,
            ArtifactDescription artifact,
            InvocationPreview invocation,
            List<String> argv,
            Enforcement enforcement,
            Optional<SkillLocation> location) {
        return new ApprovalRequest(
                proposal.id(),
                proposal.skill(),
                proposal.binding(),
                artifact,
                invocation,
                argv,
                enforcement,
                proposal.createdAt(),
                proposal.expiresAt(),
                location);
    }

    /** An approval of exactly this request (it names {@link #proposal()}; decision 0760). */
    public ApprovalDecision approve() {
        return ApprovalDecision.approve(proposal);
    }

    /** A human denial of this request with a short reason. */
    public ApprovalDecision deny(String reason) {
        return ApprovalDecision.deny(reason);
    }

    /** Always {@link #FULL_TRUST_WARNING}. */
    public String fullTrustWarning() {
        return FULL_TRUST_WARNING;
    }

    /** The run. */
    public RunId run() {
        return binding.run();
    }

    /** The agent. */
    public AgentId agent() {
        return binding.agent();
    }

    /** The workspace the script runs in (its working directory, not a boundary). */
    public WorkspaceIdentity workspace() {
        return binding.workspace();
    }

    /** The pinned runtime. */
    public RuntimeIdentity runtime() {
        return binding.runtime();
    }

    /** The deadline. */
    public Timeout timeout() {
        return binding.timeout();
    }

    /** The stdout bound. */
    public OutputLimit outputLimit() {
        return binding.outputLimit();
    }
}
