package dev.skillgate.workflow;

import dev.skillgate.workflow.internal.Procs;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * A local process named so that a reused pid is not mistaken for it: the pid and its start-time
 * token (the bare field 22 of {@code /proc/<pid>/stat}, as the runner's ownership records use it).
 * Meaningful only on the host (and boot) that recorded it.
 *
 * @param pid the process id (1 or more)
 * @param startToken the start-time token (decimal digits, at most 20)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProcessIdentity(long pid, String startToken) {
    private static final Pattern TOKEN = Pattern.compile("[0-9]{1,20}");

    public ProcessIdentity {
        Objects.requireNonNull(startToken, "startToken");
        if (pid < 1 || pid > (1L << 22) * 1024) {
            throw new IllegalArgumentException("a pid is positive");
        }
        if (!TOKEN.matcher(startToken).matches()) {
            throw new IllegalArgumentException("a start token is 1-20 decimal digits");
        }
    }

    /** This JVM's identity, where {@code /proc} can tell its start token (Linux); empty elsewhere. */
    public static Optional<ProcessIdentity> current() {
        long pid = ProcessHandle.current().pid();
        return Procs.startToken(pid).map(t -> new ProcessIdentity(pid, t));
    }

    /**
     * Whether this exact process is alive now: a process with this pid exists and has this start token.
     * A pid that is gone, or reused by a process with another start token, is dead. When
     * {@code /proc} cannot be read the answer is {@code true}: death is never assumed.
     */
    public boolean isAlive() {
        return Procs.isAlive(pid, startToken);
    }
}
