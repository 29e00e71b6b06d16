package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Exactly what one consent approves (SPEC §8): the agent, the run, the resolved workspace, the
 * artifact revision, the digest of the exact invocation bytes, the pinned runtime, the timeout and
 * the output limit.
 *
 * <p>Every field participates in equality, so any change to any of them is a different binding
 * and needs fresh consent. The binding holds the invocation's digest only, never the arguments
 * themselves. It says nothing about whether the bound values are still true on disk: the engine
 * re-captures and re-verifies before launch.
 *
 * @param agent the agent on whose behalf the skill runs
 * @param run the live run the consent belongs to
 * @param workspace the resolved workspace identity (real path and file key)
 * @param revision the captured artifact's revision
 * @param invocationDigest SHA-256 of the exact invocation bytes the script will receive
 * @param runtime the pinned Node runtime
 * @param timeout the execution deadline
 * @param outputLimit the stdout bound
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ConsentBinding(
        AgentId agent,
        RunId run,
        WorkspaceIdentity workspace,
        Revision revision,
        Sha256Digest invocationDigest,
        RuntimeIdentity runtime,
        Timeout timeout,
        OutputLimit outputLimit) {
    public ConsentBinding {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(invocationDigest, "invocationDigest");
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(outputLimit, "outputLimit");
    }

    /** The domain tag that starts the framing {@link #digest()} hashes. */
    public static final String DIGEST_TAG = "skillgate-consent/v1/binding";

    /**
     * A stable SHA-256 over every field, for audit records that must name a binding without holding
     * it: the UTF-8 tag {@value #DIGEST_TAG}, then each field as a 4-byte big-endian length and its
     * UTF-8 text — agent, run, workspace real path, workspace file key, revision, invocation digest,
     * runtime path, runtime version, runtime digest (empty when not pinned), timeout millis, output
     * bytes. Equal bindings have equal digests; a change to any field changes it. The digest reveals
     * nothing a holder of the binding could not compute, and proves nothing about the launch.
     */
    public Sha256Digest digest() {
        java.security.MessageDigest md = Sha256Digest.newMessageDigest();
        for (String field : new String[] {
            DIGEST_TAG,
            agent.value(),
            run.value(),
            workspace.realPath().toString(),
            workspace.fileKey(),
            revision.toString(),
            invocationDigest.toString(),
            runtime.executable().toString(),
            runtime.version(),
            runtime.binaryDigest().map(Sha256Digest::toString).orElse(""),
            Integer.toString(timeout.millis()),
            Integer.toString(outputLimit.bytes())
        }) {
            byte[] bytes = field.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            md.update(java.nio.ByteBuffer.allocate(4).putInt(bytes.length).array());
            md.update(bytes);
        }
        return Sha256Digest.of(md.digest());
    }
}
