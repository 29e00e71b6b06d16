package dev.skillgate.workflow;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The identity of one durable workflow: a random (type 4) UUID from the JDK's strong random source.
 * Knowing an id grants nothing; it only names records.
 *
 * @param value the UUID
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record WorkflowId(UUID value) {
    private static final Pattern CANONICAL =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

    public WorkflowId {
        Objects.requireNonNull(value, "value");
        if (value.version() != 4) {
            throw new InvalidValueException(ErrorCode.INVALID_IDENTIFIER, "a workflow id is a type 4 UUID");
        }
    }

    /** A fresh random id. */
    public static WorkflowId random() {
        return new WorkflowId(UUID.randomUUID());
    }

    /** Parses the canonical lowercase form only; anything else is {@code INVALID_IDENTIFIER}. */
    public static WorkflowId parse(String text) {
        Objects.requireNonNull(text, "text");
        if (!CANONICAL.matcher(text).matches()) {
            throw new InvalidValueException(ErrorCode.INVALID_IDENTIFIER, "not a canonical lowercase workflow id");
        }
        return new WorkflowId(UUID.fromString(text));
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
