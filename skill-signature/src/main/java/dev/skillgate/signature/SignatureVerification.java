package dev.skillgate.signature;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of verifying a publisher signature: {@link Verified} or {@link Rejected}.
 *
 * <p>{@code Verified} means one thing only: a key the host listed in its allowed signers signed,
 * in the {@code skillgate} namespace, a statement naming exactly this contract digest and this
 * revision. It is not a safety verdict on the skill, and it proves nothing about a key the host
 * should no longer trust.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface SignatureVerification permits SignatureVerification.Verified, SignatureVerification.Rejected {

    /** Whether the signature verified. */
    boolean verified();

    /**
     * The signature verified against an allowed publisher key.
     *
     * @param principals the principal patterns of the allowed-signers entry that matched
     * @param publisher the publisher that was required to match those principals, if one was
     * @param keyFingerprint the signing key's fingerprint, {@code SHA256:} + unpadded base64, as
     *     {@code ssh-keygen -l} prints it
     * @param hashAlgorithm the SSHSIG message hash, {@code sha256} or {@code sha512}
     * @param statement the signed statement (equal to the expected one)
     * @param allowedSignersLine the matching entry's line in the allowed-signers file (0 when it
     *     was added programmatically)
     */
    record Verified(
            List<String> principals,
            Optional<String> publisher,
            String keyFingerprint,
            String hashAlgorithm,
            SignatureStatement statement,
            int allowedSignersLine)
            implements SignatureVerification {
        public Verified {
            principals = List.copyOf(principals);
            Objects.requireNonNull(publisher, "publisher");
            Objects.requireNonNull(keyFingerprint, "keyFingerprint");
            Objects.requireNonNull(hashAlgorithm, "hashAlgorithm");
            Objects.requireNonNull(statement, "statement");
        }

        @Override
        public boolean verified() {
            return true;
        }
    }

    /**
     * The signature was refused; the diagnostic carries a {@code SIGNATURE_*} code.
     *
     * @param diagnostic why, located at the signature file
     */
    record Rejected(Diagnostic diagnostic) implements SignatureVerification {
        public Rejected {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        /** The stable code. */
        public ErrorCode code() {
            return diagnostic.code();
        }

        @Override
        public boolean verified() {
            return false;
        }
    }
}
