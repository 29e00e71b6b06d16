package dev.skillgate.inspect;

import dev.skillgate.model.Revision;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * SPI: verifies a skill's publisher signature against the host's allowed publisher keys, for {@link
 * SkillInspector}.
 *
 * <p>The inspector captures the bundle, parses the contract and reads {@code skill.contract.sig}
 * (at most 16 KiB, never through a link); the checker decides. The host's implementation normally
 * wraps {@code dev.skillgate.signature.SignatureVerifier} with its {@code PublisherKeys} (the
 * {@code skillgate} CLI does). Keeping this an interface keeps Bouncy Castle out of {@code
 * skill-inspect}. Implementations must be pure and must never throw for any file content.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface SignatureChecker {
    /**
     * Verifies {@code signatureFile} for these exact contract bytes and this revision.
     *
     * @param contractBytes the captured {@code skill.contract.json} bytes (a copy)
     * @param revision the captured revision
     * @param signatureFile the bytes of {@code skill.contract.sig}
     * @param publisher the contract's {@code origin.publisher}, which the signing key must be listed
     *     for when present
     */
    SignatureVerdict check(byte[] contractBytes, Revision revision, byte[] signatureFile, Optional<String> publisher);
}
