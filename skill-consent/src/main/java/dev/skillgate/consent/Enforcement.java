package dev.skillgate.consent;

import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Timeout;
import java.util.List;
import org.apiguardian.api.API;

/**
 * What is and is not enforced for a launch, shown to the human before approval.
 *
 * <p>Isolation is always {@value #ISOLATION}: Skillgate is not a sandbox. The lists are plain
 * sentences for display.
 *
 * @param applied the resource ceilings that are enforced
 * @param notEnforced what is explicitly not enforced
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Enforcement(List<String> applied, List<String> notEnforced) {
    /** The only isolation Skillgate provides. */
    public static final String ISOLATION = "none";

    public Enforcement {
        applied = List.copyOf(applied);
        notEnforced = List.copyOf(notEnforced);
        if (applied.size() > 16 || notEnforced.size() > 16) {
            throw new IllegalArgumentException("at most 16 enforcement lines each");
        }
        for (String line : applied) {
            checkLine(line);
        }
        for (String line : notEnforced) {
            checkLine(line);
        }
    }

    private static void checkLine(String line) {
        if (line.isEmpty() || line.length() > 200) {
            throw new IllegalArgumentException("an enforcement line is 1-200 characters");
        }
    }

    /** Always {@value #ISOLATION}. */
    public String isolation() {
        return ISOLATION;
    }

    /** The ceilings the Node runner applies to every launch with these limits. */
    public static Enforcement standard(Timeout timeout, OutputLimit outputLimit) {
        return new Enforcement(
                List.of(
                        "wall-clock deadline " + timeout.millis() + " ms, then SIGTERM, "
                                + Limits.TERMINATION_GRACE_MILLIS + " ms grace, SIGKILL of the process tree",
                        "stdout at most " + outputLimit.bytes() + " bytes (more fails the run)",
                        "stderr at most " + Limits.STDERR_BYTES + " bytes (more fails the run)",
                        "fixed minimal environment, direct argv, no shell"),
                List.of(
                        "file system access (the script can read and write what your user can)",
                        "network access",
                        "CPU, memory and process-count limits"));
    }
}
