package dev.skillgate.audit;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The outcome of checking a log against a checkpoint held outside it.
 *
 * <p>{@link #consistent()} means: the signature verifies (with the trusted key, when one was
 * given), the log has the checkpoint's id, and its verified history reaches the checkpoint's record
 * count with the same chain hash and byte length. A consistent result cannot reveal a rollback to a
 * state newer than the checkpoint; only a newer checkpoint can.
 *
 * @param consistent whether every check passed
 * @param keyId the id of the key that signed the checkpoint
 * @param diagnostics each failed check ({@code AUDIT_CHECKPOINT_SIGNATURE}, {@code AUDIT_CHECKPOINT_MISMATCH},
 *     {@code AUDIT_DISABLED})
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record CheckpointVerification(boolean consistent, String keyId, List<Diagnostic> diagnostics) {
    public CheckpointVerification {
        Objects.requireNonNull(keyId, "keyId");
        diagnostics = List.copyOf(diagnostics);
    }
}
