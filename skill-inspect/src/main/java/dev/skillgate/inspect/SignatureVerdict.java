package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The publisher-signature part of an {@link Inspection}: {@link NotChecked}, {@link Verified} or
 * {@link Rejected}.
 *
 * <p>{@code Verified} means only that a key the host allows signed this contract digest and this
 * revision ({@code docs/signatures.md}); it is not a safety verdict and never replaces consent. A
 * skill that is not signed, or a host that configured no publisher keys, gives {@code NotChecked}
 * with the reason — never a pass.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface SignatureVerdict
        permits SignatureVerdict.NotChecked, SignatureVerdict.Verified, SignatureVerdict.Rejected {

    /**
     * No signature was verified.
     *
     * @param reason why, in a short sentence (no publisher keys configured; no accepted contract; an
     *     unsigned local skill without a signature file)
     */
    record NotChecked(String reason) implements SignatureVerdict {
        public NotChecked {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * An allowed publisher key signed exactly this contract and revision.
     *
     * @param keyFingerprint the key's {@code SHA256:…} fingerprint as {@code ssh-keygen -l} prints it
     * @param principals the principal patterns the host listed for the key
     * @param statement the signed statement text
     */
    record Verified(String keyFingerprint, List<String> principals, String statement) implements SignatureVerdict {
        public Verified {
            Objects.requireNonNull(keyFingerprint, "keyFingerprint");
            principals = List.copyOf(principals);
            Objects.requireNonNull(statement, "statement");
        }
    }

    /**
     * The signature is missing for a signed origin, malformed, made by an unknown key, or over other
     * bytes.
     *
     * @param diagnostic a {@code SIGNATURE_*} (or {@code READ_*}) diagnostic
     */
    record Rejected(Diagnostic diagnostic) implements SignatureVerdict {
        public Rejected {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        /** The stable code. */
        public ErrorCode code() {
            return diagnostic.code();
        }
    }
}
