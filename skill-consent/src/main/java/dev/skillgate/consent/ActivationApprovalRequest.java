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
import org.apiguardian.api.API;

/**
 * Asks the human for first-use approval of a prompt skill (SPEC §5, §12 activation): may this agent
 * use these exact bytes as prompt material?
 *
 * <p>It shows what the seed's trust lifecycle names: the origin, the agent and the contract's agent
 * ranges, input types, tools, credentials, permission mode, network destinations, side-effect
 * class, the contract hash (and, for a contract a trust-contract dialect mapped, its record type)
 * and the content revision — plus every captured file with its size and
 * digest, and the {@code SKILL.md} instructions on demand (read from the immutable capture). A skill
 * without a contract shows that it declares nothing. Approval is scoped to {agent, contract hash,
 * revision}: editing any file makes a new scope. Approving instructions does not make them safe,
 * and approving a prompt skill never authorises running its script (that needs its own consent).
 *
 * <p>Each request has its own {@link #id()}: the host answers it with {@link #approve()} (or
 * {@link #deny}), and the engine refuses an approval that names another request (decision 0760).
 * {@link #location()} shows where the skill was found and flags confusable names (decision 0767).
 *
 * @param id this request's id (random; an approval must name it)
 * @param skill the skill
 * @param agent the agent coordinates the approval is scoped to
 * @param agentKind the agent's kind, as the host describes it
 * @param agentVersion the agent's version, as the host describes it
 * @param revision the captured content revision
 * @param files every captured file with size and digest
 * @param contract the accepted contract, empty when the skill has none
 * @param contractDigest SHA-256 of the exact contract bytes, empty when the skill has none
 * @param contractRecordType the contract's {@code recordType}: {@code skill-contract}, or the
 *     trust-contract dialect that mapped it; empty when the skill has no contract
 * @param instructions reads the captured {@code SKILL.md} text on demand
 * @param createdAt wall-clock time of the request (display)
 * @param location where the skill was found, empty when the caller does not say
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ActivationApprovalRequest(
        ProposalId id,
        SkillName skill,
        AgentId agent,
        String agentKind,
        String agentVersion,
        Revision revision,
        List<ArtifactDescription.FileEntry> files,
        Optional<SkillContract> contract,
        Optional<Sha256Digest> contractDigest,
        Optional<String> contractRecordType,
        Supplier<String> instructions,
        Instant createdAt,
        Optional<SkillLocation> location) {

    /**
     * A request with a fresh {@link #id()} and no location, for a contract of any record type.
     */
    public ActivationApprovalRequest(
            SkillName skill,
            AgentId agent,
            String agentKind,
            String agentVersion,
            Revision revision,
            List<ArtifactDescription.FileEntry> files,
            Optional<SkillContract> contract,
            Optional<Sha256Digest> contractDigest,
            Optional<String> contractRecordType,
            Supplier<String> instructions,
            Instant createdAt) {
        this(
                ProposalId.random(),
                skill,
                agent,
                agentKind,
                agentVersion,
                revision,
                files,
                contract,
                contractDigest,
                contractRecordType,
                instructions,
                createdAt,
                Optional.empty());
    }

    /**
     * A request for a contract of the built-in {@code skill-contract} record (or none): the record
     * type is {@link SkillContract#RECORD_TYPE} when a contract is given.
     */
    public ActivationApprovalRequest(
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
        this(
                skill,
                agent,
                agentKind,
                agentVersion,
                revision,
                files,
                contract,
                contractDigest,
                contract.map(c -> SkillContract.RECORD_TYPE),
                instructions,
                createdAt);
    }

    /** Whether a trust-contract dialect, not the built-in record, produced the contract. */
    public boolean contractFromDialect() {
        return contractRecordType.map(t -> !t.equals(SkillContract.RECORD_TYPE)).orElse(false);
    }

    /** The fixed warning every activation surface must show. */
    public static final String PROMPT_WARNING =
            "its instructions become part of your agent's prompt; approving them does not make them safe";

    public ActivationApprovalRequest {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(location, "location");
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
        Objects.requireNonNull(contractRecordType, "contractRecordType");
        if (contract.isPresent() != contractDigest.isPresent()
                || contract.isPresent() != contractRecordType.isPresent()) {
            throw new IllegalArgumentException("a contract, its digest and its record type go together");
        }
        contractRecordType.ifPresent(t -> {
            if (!t.matches("[a-z0-9][a-z0-9._/-]{0,63}")) {
                throw new IllegalArgumentException("a contract record type is 1-64 of [a-z0-9._/-]");
            }
        });
        if (files.isEmpty() || files.size() > ArtifactDescription.MAX_FILES) {
            throw new IllegalArgumentException("an activation lists 1-" + ArtifactDescription.MAX_FILES + " files");
        }
    }

    /** An approval of exactly this request (it names {@link #id()}; decision 0760). */
    public ApprovalDecision approve() {
        return ApprovalDecision.approve(id);
    }

    /** A human denial of this request with a short reason. */
    public ApprovalDecision deny(String reason) {
        return ApprovalDecision.deny(reason);
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
