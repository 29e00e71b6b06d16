package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One finding: a stable code, a severity, where it was found and a short message.
 *
 * <p>The location is a bundle-relative path, a JSON pointer, or empty when the finding concerns the
 * whole input. Messages are sanitised on construction: control characters are escaped and the text
 * is cut to {@link #MAX_MESSAGE_LENGTH} characters, so a diagnostic can never carry a large raw
 * value or break a terminal. It makes no claim beyond the check that produced it.
 *
 * @param code stable code
 * @param severity how much it matters
 * @param location relative path or JSON pointer; empty for none
 * @param message short human text
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Diagnostic(ErrorCode code, Severity severity, String location, String message) {

    /** Longest message kept, in code points (after escaping); longer text is cut and marked with an ellipsis. */
    public static final int MAX_MESSAGE_LENGTH = 300;

    /** Longest location kept, in code points (after escaping). */
    public static final int MAX_LOCATION_LENGTH = 512;

    public Diagnostic {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(severity, "severity");
        location = Text.sanitize(Objects.requireNonNull(location, "location"), MAX_LOCATION_LENGTH);
        message = Text.sanitize(Objects.requireNonNull(message, "message"), MAX_MESSAGE_LENGTH);
    }

    /** An error-level diagnostic. */
    public static Diagnostic error(ErrorCode code, String location, String message) {
        return new Diagnostic(code, Severity.ERROR, location, message);
    }

    /** A warning-level diagnostic. */
    public static Diagnostic warning(ErrorCode code, String location, String message) {
        return new Diagnostic(code, Severity.WARNING, location, message);
    }

    /** An info-level diagnostic. */
    public static Diagnostic info(ErrorCode code, String location, String message) {
        return new Diagnostic(code, Severity.INFO, location, message);
    }

    /** Whether this diagnostic fails the verdict it belongs to. */
    public boolean isError() {
        return severity == Severity.ERROR;
    }

    @Override
    public String toString() {
        return severity + " " + code + (location.isEmpty() ? "" : " at " + location) + ": " + message;
    }
}
