package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.protocol.SchemaRole;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Whether one of a manifest's schemas passed the bounded schema gate (SPEC §6), as an {@link
 * Inspection} reports it.
 *
 * @param role input or output
 * @param status the outcome
 * @param problems the gate's diagnostics (JSON pointers under {@code /inputSchema} or {@code
 *     /outputSchema}); empty unless rejected
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SchemaVerdict(SchemaRole role, Status status, List<Diagnostic> problems) {

    /** The outcome of the gate for one schema. */
    public enum Status {
        /** The schema is inside the subset and compiled. */
        ACCEPTED,
        /** The schema is missing or leaves the subset. */
        REJECTED,
        /** There is no manifest, or the manifest was refused before its schemas were looked at. */
        NOT_CHECKED
    }

    public SchemaVerdict {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(status, "status");
        problems = List.copyOf(problems);
        if ((status == Status.REJECTED) == problems.isEmpty()) {
            throw new IllegalArgumentException("a rejected schema, and only it, has problems");
        }
    }
}
