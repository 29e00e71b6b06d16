package dev.skillgate.workflow;

import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One record as a {@link WorkflowStore} keeps it: its position (workflow, sequence), the schema
 * version and fencing token it was sealed with (for the store's own checks and queries), and the
 * sealed bytes (an AES-256-GCM envelope whose authenticated header repeats all of these and the
 * owner). A store never sees plaintext and never needs to.
 *
 * @param workflow the workflow
 * @param sequence the record's position (0 for the definition)
 * @param schemaVersion the record schema version
 * @param fencingToken the fencing token of the owner that sealed it
 * @param sealed the envelope bytes (copied in and out)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record SealedRecord(WorkflowId workflow, int sequence, int schemaVersion, long fencingToken, byte[] sealed) {
    /** The most bytes one sealed record may have. */
    public static final int MAX_BYTES = 1024 * 1024;

    public SealedRecord {
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(sealed, "sealed");
        if (sequence < 0 || schemaVersion < 1 || fencingToken < 1) {
            throw new IllegalArgumentException("sequence, schema version and fencing token out of range");
        }
        if (sealed.length == 0 || sealed.length > MAX_BYTES) {
            throw new IllegalArgumentException("a sealed record is 1-" + MAX_BYTES + " bytes");
        }
        sealed = sealed.clone();
    }

    @Override
    public byte[] sealed() {
        return sealed.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SealedRecord r
                && workflow.equals(r.workflow)
                && sequence == r.sequence
                && schemaVersion == r.schemaVersion
                && fencingToken == r.fencingToken
                && Arrays.equals(sealed, r.sealed);
    }

    @Override
    public int hashCode() {
        return Objects.hash(workflow, sequence, schemaVersion, fencingToken, Arrays.hashCode(sealed));
    }

    @Override
    public String toString() {
        return "SealedRecord[" + workflow + "#" + sequence + ", v" + schemaVersion + ", token " + fencingToken + ", "
                + sealed.length + " bytes]";
    }
}
