package dev.skillgate.runner;

import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Everything a {@link ProcessSupervisor} needs to start and bound one process. Built by the runner,
 * never from caller-supplied flags or environment.
 *
 * <p>The constructor checks shape, not policy: absolute executable and working directory, bounds in
 * range, no NUL in any argument or environment entry, environment keys without {@code =}. The
 * runner's fixed allow-list and deny pass decide what the environment holds.
 *
 * @param runId the run this process belongs to (also used to tag processes in tests)
 * @param executable absolute path of the binary to start
 * @param executableDigest if present, the supervisor verifies the binary against it and starts the
 *     bytes it verified (the Linux helper execs the hashed file descriptor)
 * @param arguments argv after the executable, e.g. fixed node flags and the staged entrypoint
 * @param workingDirectory absolute working directory of the child
 * @param workingDirectoryIdentity if present, the device and inode the working directory must have:
 *     a supervisor that honours it refuses a mismatch as {@code WORKSPACE_CHANGED} and starts the
 *     child in the directory it checked (the Linux helper opens it once and {@code fchdir}s to that
 *     descriptor); the portable supervisor checks it once by path before it starts the child
 * @param environment the complete child environment; nothing is inherited
 * @param stdin bytes written to the child's stdin before it is closed (copied)
 * @param stdoutLimit most stdout bytes kept; one more ends the run as an overflow
 * @param stderrLimit most stderr bytes kept; one more ends the run as an overflow
 * @param wallTimeout deadline from spawn, monotonic
 * @param terminationGrace time between SIGTERM and SIGKILL
 * @param killDeadline time allowed for the kill-and-prove phase; past it cleanup is unproven
 * @param ceilings optional resource ceilings (rlimits) for the child
 * @param ownership called with the supervisor's identity before the child starts
 * @param confinement what the supervisor should confine where the kernel offers it (hardening layer L2)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record LaunchSpec(
        RunId runId,
        Path executable,
        Optional<Sha256Digest> executableDigest,
        List<String> arguments,
        Path workingDirectory,
        Optional<DirectoryIdentity> workingDirectoryIdentity,
        Map<String, String> environment,
        byte[] stdin,
        int stdoutLimit,
        int stderrLimit,
        Duration wallTimeout,
        Duration terminationGrace,
        Duration killDeadline,
        ResourceCeilings ceilings,
        OwnershipRecorder ownership,
        LaunchConfinement confinement) {

    /** The default kill-and-prove deadline. */
    public static final Duration DEFAULT_KILL_DEADLINE = Duration.ofSeconds(5);

    /** Largest stdin payload. */
    public static final int MAX_STDIN_BYTES = 1024 * 1024;

    public LaunchSpec {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(executable, "executable");
        Objects.requireNonNull(executableDigest, "executableDigest");
        arguments = List.copyOf(arguments);
        Objects.requireNonNull(workingDirectory, "workingDirectory");
        Objects.requireNonNull(workingDirectoryIdentity, "workingDirectoryIdentity");
        environment = Map.copyOf(environment);
        stdin = Objects.requireNonNull(stdin, "stdin").clone();
        Objects.requireNonNull(wallTimeout, "wallTimeout");
        Objects.requireNonNull(terminationGrace, "terminationGrace");
        Objects.requireNonNull(killDeadline, "killDeadline");
        Objects.requireNonNull(ceilings, "ceilings");
        Objects.requireNonNull(ownership, "ownership");
        Objects.requireNonNull(confinement, "confinement");
        if (!executable.isAbsolute() || !workingDirectory.isAbsolute()) {
            throw new IllegalArgumentException("executable and working directory must be absolute");
        }
        if (stdin.length > MAX_STDIN_BYTES) {
            throw new IllegalArgumentException("stdin payload too large");
        }
        if (stdoutLimit < 1 || stdoutLimit > OutputLimit.MAX_BYTES) {
            throw new IllegalArgumentException("stdout limit out of range");
        }
        if (stderrLimit < 1 || stderrLimit > Limits.STDERR_BYTES) {
            throw new IllegalArgumentException("stderr limit out of range");
        }
        if (wallTimeout.isNegative() || wallTimeout.isZero() || wallTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("wall timeout out of range");
        }
        if (terminationGrace.isNegative() || terminationGrace.compareTo(Duration.ofSeconds(30)) > 0) {
            throw new IllegalArgumentException("grace out of range");
        }
        if (killDeadline.isNegative() || killDeadline.isZero() || killDeadline.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("kill deadline out of range");
        }
        for (String arg : arguments) {
            if (arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argument contains NUL");
            }
        }
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String key = e.getKey();
            if (key.isEmpty()
                    || key.indexOf('=') >= 0
                    || key.indexOf('\0') >= 0
                    || e.getValue().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("malformed environment entry");
            }
        }
    }

    /** A spec that asks for no file-write or network confinement ({@link LaunchConfinement#UNRESTRICTED}). */
    public LaunchSpec(
            RunId runId,
            Path executable,
            Optional<Sha256Digest> executableDigest,
            List<String> arguments,
            Path workingDirectory,
            Optional<DirectoryIdentity> workingDirectoryIdentity,
            Map<String, String> environment,
            byte[] stdin,
            int stdoutLimit,
            int stderrLimit,
            Duration wallTimeout,
            Duration terminationGrace,
            Duration killDeadline,
            ResourceCeilings ceilings,
            OwnershipRecorder ownership) {
        this(
                runId,
                executable,
                executableDigest,
                arguments,
                workingDirectory,
                workingDirectoryIdentity,
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wallTimeout,
                terminationGrace,
                killDeadline,
                ceilings,
                ownership,
                LaunchConfinement.UNRESTRICTED);
    }

    /**
     * A spec without a working-directory identity: the directory is used by path. A wrapper that
     * rebuilds a spec must not use this constructor (it would drop the identity); use
     * {@link #withOwnership} or the canonical constructor.
     */
    public LaunchSpec(
            RunId runId,
            Path executable,
            Optional<Sha256Digest> executableDigest,
            List<String> arguments,
            Path workingDirectory,
            Map<String, String> environment,
            byte[] stdin,
            int stdoutLimit,
            int stderrLimit,
            Duration wallTimeout,
            Duration terminationGrace,
            Duration killDeadline,
            ResourceCeilings ceilings,
            OwnershipRecorder ownership) {
        this(
                runId,
                executable,
                executableDigest,
                arguments,
                workingDirectory,
                Optional.empty(),
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wallTimeout,
                terminationGrace,
                killDeadline,
                ceilings,
                ownership);
    }

    /** The same spec with another ownership recorder (e.g. one that observes and delegates). */
    public LaunchSpec withOwnership(OwnershipRecorder recorder) {
        return new LaunchSpec(
                runId,
                executable,
                executableDigest,
                arguments,
                workingDirectory,
                workingDirectoryIdentity,
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wallTimeout,
                terminationGrace,
                killDeadline,
                ceilings,
                recorder,
                confinement);
    }

    /** The same spec bound to a working-directory identity. */
    public LaunchSpec withWorkingDirectoryIdentity(DirectoryIdentity identity) {
        return new LaunchSpec(
                runId,
                executable,
                executableDigest,
                arguments,
                workingDirectory,
                Optional.of(identity),
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wallTimeout,
                terminationGrace,
                killDeadline,
                ceilings,
                ownership,
                confinement);
    }

    /** The same spec asking for {@code confinement}. */
    public LaunchSpec withConfinement(LaunchConfinement confinement) {
        return new LaunchSpec(
                runId,
                executable,
                executableDigest,
                arguments,
                workingDirectory,
                workingDirectoryIdentity,
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wallTimeout,
                terminationGrace,
                killDeadline,
                ceilings,
                ownership,
                confinement);
    }

    /** A copy of the stdin payload. */
    @Override
    public byte[] stdin() {
        return stdin.clone();
    }

    /** The full argv: the executable followed by the arguments. */
    public List<String> argv() {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(executable.toString()), arguments.stream())
                .toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LaunchSpec other
                && runId.equals(other.runId)
                && executable.equals(other.executable)
                && executableDigest.equals(other.executableDigest)
                && arguments.equals(other.arguments)
                && workingDirectory.equals(other.workingDirectory)
                && workingDirectoryIdentity.equals(other.workingDirectoryIdentity)
                && environment.equals(other.environment)
                && java.util.Arrays.equals(stdin, other.stdin)
                && stdoutLimit == other.stdoutLimit
                && stderrLimit == other.stderrLimit
                && wallTimeout.equals(other.wallTimeout)
                && terminationGrace.equals(other.terminationGrace)
                && killDeadline.equals(other.killDeadline)
                && ceilings.equals(other.ceilings)
                && ownership.equals(other.ownership)
                && confinement.equals(other.confinement);
    }

    @Override
    public int hashCode() {
        return Objects.hash(runId, executable, arguments, workingDirectory, stdoutLimit, wallTimeout);
    }

    @Override
    public String toString() {
        // Never prints the environment or stdin: they may hold data the human approved but logs must not.
        return "LaunchSpec[run=" + runId + ", executable=" + executable + ", arguments=" + arguments.size()
                + ", wallTimeout=" + wallTimeout + "]";
    }
}
