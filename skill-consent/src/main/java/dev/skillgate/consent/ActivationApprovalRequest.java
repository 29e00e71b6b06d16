package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Limits;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Asks the human for first-use approval of a prompt skill (SPEC §5, §12 activation): may this agent
 * use these exact bytes as prompt material?
 *
 * <p>It shows what the seed's trust lifecycle names: the origin, the agent and the contract's agent
 * ranges, input types, tools, credentials, permission mode, network destinations, side-effect
 * class, the contract hash and the content revision — plus every captured file with its size and
 * digest, and the {@code SKILL.md} instructions on demand (read from the immutable capture). A skill
 * without a contract shows that it declares nothing. Approval is scoped to {agent, contract hash,
 * revision}: editing any file makes a new scope. Approving instructions does not make them safe,
 * and approving a prompt skill never authorises running its script (that needs its own consent).
 *
 * @param skill the skill
 * @param agent the agent coordinates the approval is scoped to
 * @param agentKind the agent's kind, as the host describes it
 * @param agentVersion the agent's version, as the host describes it
 * @param revision the captured content revision
 * @param files every captured file with size and digest
 * @param contract the accepted contract, empty when the skill has none
 * @param contractDigest SHA-256 of the exact contract bytes, empty when the skill has none
 * @param instructions reads the captured {@code SKILL.md} text on demand
 * @param createdAt wall-clock time of the request (display)
 */
public record ActivationApprovalRequest(
        SkillName skill,
        AgentId agent,
        String agentKind,
        String agentVersion,
        Revision revision,
        List<ArtifactDescription.FileEntry> files,
        Optional<SkillContract> contract,
        Optional<Sha256Digest> contractDigest,
        Supplier<String> instructions,
        Instant createdAt) {

    /** The fixed warning every activation surface must show. */
    public static final String PROMPT_WARNING =
            "its instructions become part of your agent's prompt; approving them does not make them safe";

    public ActivationApprovalRequest {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(agentKind, "agentKind");
        Objects.requireNonNull(agentVersion, "agentVersion");
        Objects.requireNonNull(revision, "revision");
        files = List.copyOf(files);
        Objects.requireNonNull(contract, "contract");
        Objects.requireNonNull(contractDigest, "contractDigest");
        Objects.requireNonNull(instructions, "instructions");
        Objects.requireNonNull(createdAt, "createdAt");
        if (contract.isPresent() != contractDigest.isPresent()) {
            throw new IllegalArgumentException("a contract and its digest go together");
        }
        if (files.isEmpty() || files.size() > ArtifactDescription.MAX_FILES) {
            throw new IllegalArgumentException("an activation lists 1-" + ArtifactDescription.MAX_FILES + " files");
        }
    }

    /** Always {@link #PROMPT_WARNING}. */
    public String promptWarning() {
        return PROMPT_WARNING;
    }

    /**
     * The instructions, read on demand; empty when the supplier fails, returns nothing or returns
     * more than a captured file can hold.
     */
    public Optional<String> readInstructions() {
        try {
            String text = instructions.get();
            if (text == null || text.length() > Limits.FILE_BYTES) {
                return Optional.empty();
            }
            return Optional.of(text);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
