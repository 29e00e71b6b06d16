package dev.skillgate.workflow;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * The name of one host instance that may own workflows ({@code [a-z0-9][a-z0-9.-]{0,63}}), chosen by
 * the host (for example its machine and service name). It is recorded as the owner and authenticated
 * in every record that instance seals; it is not a secret and grants nothing.
 *
 * @param value the name
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record InstanceId(String value) {
    /** The pattern an instance id matches. */
    public static final Pattern PATTERN = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    public InstanceId {
        Objects.requireNonNull(value, "value");
        if (!PATTERN.matcher(value).matches()) {
            throw new InvalidValueException(
                    ErrorCode.INVALID_IDENTIFIER, "an instance id is 1-64 of [a-z0-9.-], starting with [a-z0-9]");
        }
    }

    /** The instance id {@code value}. */
    public static InstanceId of(String value) {
        return new InstanceId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
