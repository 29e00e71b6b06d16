package dev.skillgate.audit;

import dev.skillgate.audit.internal.Instants;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * A trusted-revision execution receipt (SPEC §8): the scope {revision, agent, workspace, timeout
 * ceiling, output ceiling} together with the receipt {id, instant} the policy store minted for it.
 *
 * <p>The receipt is part of the scope: a re-added scope gets a new receipt and is a new scope, and a
 * revoked receipt stays revoked. The workspace is recorded as a digest of its identity (see
 * {@link #workspaceDigest}), never as a path. This record does not mint receipts and cannot tell a
 * genuine one from a forged one; only the policy store mints them.
 *
 * @param revision the content revision the receipt covers
 * @param agent the agent the receipt covers
 * @param workspace the {@link #workspaceDigest} of the workspace identity
 * @param timeoutCeiling the longest timeout a launch inside the scope may use
 * @param outputCeiling the largest output limit a launch inside the scope may use
 * @param receiptId the receipt's UUID
 * @param receiptIssuedAt when the receipt was minted (UTC; years 0000–9999)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ExecutionScope(
        Revision revision,
        AgentId agent,
        Sha256Digest workspace,
        Timeout timeoutCeiling,
        OutputLimit outputCeiling,
        UUID receiptId,
        Instant receiptIssuedAt)
        implements TrustScope {

    private static final byte[] WORKSPACE_TAG = "skillgate-audit/v1/workspace\0".getBytes(StandardCharsets.US_ASCII);

    public ExecutionScope {
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(timeoutCeiling, "timeoutCeiling");
        Objects.requireNonNull(outputCeiling, "outputCeiling");
        Objects.requireNonNull(receiptId, "receiptId");
        Objects.requireNonNull(receiptIssuedAt, "receiptIssuedAt");
        Instants.check(receiptIssuedAt);
    }

    /**
     * The digest recorded for a workspace: SHA-256 over a domain tag, the real path's UTF-8 bytes, a
     * NUL and the file key. It keeps the path out of the log; it does not hide a path from someone
     * who can guess it and its file key.
     */
    public static Sha256Digest workspaceDigest(WorkspaceIdentity workspace) {
        Objects.requireNonNull(workspace, "workspace");
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update(WORKSPACE_TAG);
        md.update(workspace.realPath().toString().getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        md.update(workspace.fileKey().getBytes(StandardCharsets.UTF_8));
        return Sha256Digest.of(md.digest());
    }
}
