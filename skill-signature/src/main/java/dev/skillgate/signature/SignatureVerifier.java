package dev.skillgate.signature;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.shared.Text;
import dev.skillgate.signature.internal.Ed25519PublicKey;
import dev.skillgate.signature.internal.Refusal;
import dev.skillgate.signature.internal.SignatureFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Verifies a skill publisher's signature file against the host's allowed publisher keys (SPEC §5).
 *
 * <p>A signature file ({@value #SIGNATURE_FILE_NAME} next to {@code skill.contract.json}) holds the
 * {@link SignatureStatement} the publisher signed, followed by the armored SSH signature that {@code
 * ssh-keygen -Y sign -n skillgate} made over exactly those statement bytes ({@code
 * docs/signatures.md}). Checks run in a fixed order and the first failure is reported:
 *
 * <ol>
 *   <li>size, statement layout, armor and SSHSIG structure: {@code SIGNATURE_FORMAT};
 *   <li>key, signature or hash algorithm other than Ed25519 with SHA-256/512: {@code
 *       SIGNATURE_ALGORITHM};
 *   <li>namespace other than {@value #NAMESPACE}: {@code SIGNATURE_NAMESPACE};
 *   <li>key not listed (for this namespace): {@code SIGNATURE_UNKNOWN_KEY};
 *   <li>Ed25519 verification of the SSHSIG signed data fails: {@code SIGNATURE_INVALID};
 *   <li>key not allowed for the contract's publisher (only when one is given): {@code
 *       SIGNATURE_PUBLISHER_MISMATCH};
 *   <li>the correctly signed statement names another contract digest or revision: {@code
 *       SIGNATURE_REVISION_MISMATCH}.
 * </ol>
 *
 * <p>So a mismatch code is only ever reported for a statement an allowed key really signed. A
 * {@code Verified} result is not a safety verdict and does not replace first-use consent for
 * running a script; it says an allowed key vouched for these exact bytes. Stateless and
 * thread-safe; never throws for any file content.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SignatureVerifier {

    /** The SSH signature namespace publishers sign in ({@code ssh-keygen -Y sign -n skillgate}). */
    public static final String NAMESPACE = SignatureFile.NAMESPACE;

    /**
     * The bundle-relative name of the signature file. It is not one of the files a revision covers
     * (it signs the revision), so it must not be listed in {@code execution.json}'s {@code files}.
     */
    public static final String SIGNATURE_FILE_NAME = "skill.contract.sig";

    /** Largest signature file accepted, in bytes. */
    public static final int MAX_SIGNATURE_FILE_BYTES = 16 * 1024;

    private SignatureVerifier() {}

    /**
     * Verifies {@code signatureFile} for these exact contract bytes and this revision, accepting any
     * allowed key whatever its principals; {@link SignatureVerification.Verified#principals()} says
     * whom the host listed for it. Prefer {@link #verifyForPublisher} when the contract names its
     * publisher.
     */
    public static SignatureVerification verify(
            byte[] contractBytes, Revision revision, byte[] signatureFile, PublisherKeys keys) {
        return check(SignatureStatement.of(contractBytes, revision), signatureFile, keys, Optional.empty());
    }

    /** As {@link #verify(byte[], Revision, byte[], PublisherKeys)} for an already built statement. */
    public static SignatureVerification verify(SignatureStatement expected, byte[] signatureFile, PublisherKeys keys) {
        return check(expected, signatureFile, keys, Optional.empty());
    }

    /**
     * Verifies as {@link #verify(SignatureStatement, byte[], PublisherKeys)} and also requires that
     * the allowed-signers entry of the signing key has a principal pattern matching {@code
     * publisher} (the contract's {@code origin.publisher}), as {@code ssh-keygen -Y verify -I} does.
     */
    public static SignatureVerification verifyForPublisher(
            String publisher, SignatureStatement expected, byte[] signatureFile, PublisherKeys keys) {
        Objects.requireNonNull(publisher, "publisher");
        return check(expected, signatureFile, keys, Optional.of(publisher));
    }

    /** The result for a {@code signed} origin whose bundle has no signature file. */
    public static SignatureVerification missing() {
        return new SignatureVerification.Rejected(Diagnostic.error(
                ErrorCode.SIGNATURE_MISSING,
                SIGNATURE_FILE_NAME,
                "the contract's origin is signed, but the bundle has no " + SIGNATURE_FILE_NAME));
    }

    private static SignatureVerification check(
            SignatureStatement expected, byte[] signatureFile, PublisherKeys keys, Optional<String> publisher) {
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(signatureFile, "signatureFile");
        Objects.requireNonNull(keys, "keys");
        SignatureFile parsed;
        try {
            parsed = SignatureFile.parse(signatureFile, MAX_SIGNATURE_FILE_BYTES);
        } catch (Refusal refusal) {
            return new SignatureVerification.Rejected(refusal.toDiagnostic(SIGNATURE_FILE_NAME));
        }
        Ed25519PublicKey signer = parsed.key();
        List<Integer> candidates = new ArrayList<>();
        int listedLine = -1;
        for (int i = 0; i < keys.entries().size(); i++) {
            if (keys.key(i).equals(signer)) {
                PublisherKey entry = keys.entries().get(i);
                if (entry.allowsNamespace(NAMESPACE)) {
                    candidates.add(i);
                } else if (listedLine < 0) {
                    listedLine = entry.line();
                }
            }
        }
        if (candidates.isEmpty()) {
            return reject(
                    ErrorCode.SIGNATURE_UNKNOWN_KEY,
                    listedLine >= 0
                            ? "key " + signer.fingerprint() + " is listed (line " + listedLine
                                    + ") but not for namespace " + NAMESPACE
                            : "key " + signer.fingerprint() + " is not among the allowed publisher keys");
        }
        if (!parsed.verifiesWith(keys.key(candidates.get(0)))) {
            return reject(
                    ErrorCode.SIGNATURE_INVALID,
                    "the signature by key " + signer.fingerprint() + " does not verify over the embedded statement");
        }
        PublisherKey chosen = null;
        for (int index : candidates) {
            PublisherKey entry = keys.entries().get(index);
            if (publisher.isEmpty() || entry.allowsPrincipal(publisher.get())) {
                chosen = entry;
                break;
            }
        }
        if (chosen == null) {
            return reject(
                    ErrorCode.SIGNATURE_PUBLISHER_MISMATCH,
                    "key " + signer.fingerprint() + " is not allowed for publisher '"
                            + Text.excerpt(publisher.orElse("")) + "'");
        }
        SignatureStatement signed = parsed.statement();
        boolean contractDiffers = !signed.contractDigest().equals(expected.contractDigest());
        boolean revisionDiffers = !signed.revision().equals(expected.revision());
        if (contractDiffers || revisionDiffers) {
            String what = contractDiffers && revisionDiffers
                    ? "contract digest and revision"
                    : contractDiffers ? "contract digest" : "revision";
            return reject(
                    ErrorCode.SIGNATURE_REVISION_MISMATCH,
                    "the publisher signed another " + what + ": signed "
                            + shortForm(
                                    contractDiffers
                                            ? signed.contractDigest().toString()
                                            : signed.revision().toString())
                            + ", captured "
                            + shortForm(
                                    contractDiffers
                                            ? expected.contractDigest().toString()
                                            : expected.revision().toString())
                            + "; the bundle changed after signing or was signed for another version");
        }
        return new SignatureVerification.Verified(
                chosen.principals(), publisher, signer.fingerprint(), parsed.hashAlgorithm(), signed, chosen.line());
    }

    private static String shortForm(String digest) {
        return digest.substring(0, "sha256:".length() + 16) + "\u2026";
    }

    private static SignatureVerification reject(ErrorCode code, String message) {
        return new SignatureVerification.Rejected(Diagnostic.error(code, SIGNATURE_FILE_NAME, message));
    }
}
