package dev.skillgate.consent;

import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The invocation as the human sees it: the engine's pretty-printed rendering of the exact input and
 * the digest of the exact bytes the script will receive.
 *
 * <p>Consent binds to the digest; the text exists only for display and lives only in the
 * {@link ApprovalRequest}. The ledger never keeps it. This type cannot check that the text renders
 * the digested bytes: the engine produces both from the same validated input.
 *
 * @param prettyText the rendered input, at most {@link #MAX_CHARS}
 * @param digest SHA-256 of the exact invocation bytes
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record InvocationPreview(String prettyText, Sha256Digest digest) {
    /**
     * Longest rendering, in UTF-16 units: a 64 KiB invocation with at most 4,096 nodes nested at
     * most 32 deep pretty-prints to well under this.
     */
    public static final int MAX_CHARS = 512 * 1024;

    public InvocationPreview {
        Objects.requireNonNull(prettyText, "prettyText");
        Objects.requireNonNull(digest, "digest");
        if (prettyText.length() > MAX_CHARS) {
            throw new IllegalArgumentException("the invocation rendering exceeds " + MAX_CHARS + " characters");
        }
    }
}
