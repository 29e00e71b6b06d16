package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One diagnostic of a validation, with the verdicts it fails.
 *
 * <p>A finding that blocks loading always blocks the portable verdict too (loading is the more
 * lenient reading). A finding that blocks neither is a warning or a note (for example a preserved
 * host extension under a lenient load, or a host-specific rule that is reported but not enforced).
 *
 * @param diagnostic the code, severity, location and message
 * @param blocksPortable whether it fails the portable verdict ({@code skillgate validate} exits by it)
 * @param blocksLoading whether it fails the loadable verdict (discovery and the catalog skip the
 *     skill)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Finding(Diagnostic diagnostic, boolean blocksPortable, boolean blocksLoading) {
    public Finding {
        Objects.requireNonNull(diagnostic, "diagnostic");
        if (blocksLoading && !blocksPortable) {
            throw new IllegalArgumentException("a finding that blocks loading must block the portable verdict");
        }
    }
}
