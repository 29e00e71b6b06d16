package dev.skillgate.project;

import java.time.Duration;
import org.apiguardian.api.API;

/**
 * The fixed bounds of the Node project profile (seed ADR-007). They are constants, not settings: a
 * host cannot widen them, and every one is shown in the approval request.
 *
 * <p>Per-stream output is bounded more tightly than ADR-007's 1 MiB: the supervisors keep at most
 * 256 KiB of stdout and 16 KiB of stderr per launch (decision 0652).
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectLimits {
    private ProjectLimits() {}

    /** Most bytes of sources and dependencies together. */
    public static final long SNAPSHOT_BYTES = 64L * 1024 * 1024;

    /** Most source files (everything outside {@code node_modules}, {@code .git} and the output directory). */
    public static final int SOURCE_FILES = 2_000;

    /** Most bytes of one source file. */
    public static final int SOURCE_FILE_BYTES = 2 * 1024 * 1024;

    /** Most regular files under {@code node_modules}. */
    public static final int DEPENDENCY_FILES = 512;

    /** Most bytes of one dependency file. */
    public static final int DEPENDENCY_FILE_BYTES = 16 * 1024 * 1024;

    /** Most bytes of a patch (none is applied by this profile yet; the bound is ADR-007's). */
    public static final int PATCH_BYTES = 1024 * 1024;

    /** Most bytes of all output of all steps together. */
    public static final long TOTAL_OUTPUT_BYTES = 16L * 1024 * 1024;

    /** Most stdout bytes kept per step (the supervisors' bound, {@link dev.skillgate.model.OutputLimit#MAX_BYTES}). */
    public static final int STDOUT_BYTES = dev.skillgate.model.OutputLimit.MAX_BYTES;

    /** Most stderr bytes kept per step (the supervisors' bound). */
    public static final int STDERR_BYTES = dev.skillgate.model.Limits.STDERR_BYTES;

    /** The whole job's wall deadline, every step and every cleanup included. */
    public static final Duration TOTAL_WALL = Duration.ofSeconds(180);

    /** Time between SIGTERM and SIGKILL at the end of a step. */
    public static final Duration TERMINATION_GRACE = Duration.ofSeconds(1);

    /** The kill-and-prove phase of a step. */
    public static final Duration KILL_DEADLINE = Duration.ofSeconds(5);

    /**
     * The cleanup reserve each step keeps inside {@link #TOTAL_WALL}: grace, kill deadline and two
     * seconds of slack for staging removal; a step starts only with more than this left.
     */
    public static final Duration CLEANUP_RESERVE =
            TERMINATION_GRACE.plus(KILL_DEADLINE).plusSeconds(2);

    /** Most exact test files after {@code node --test}. */
    public static final int TEST_FILES = 8;

    /** Most files the build may leave in the output directory. */
    public static final int OUTPUT_FILES = 2_000;

    /** Most bytes of {@code package.json}, the lockfile and each tsconfig. */
    public static final int MANIFEST_BYTES = SOURCE_FILE_BYTES;

    /** Deepest directory nesting walked. */
    public static final int MAX_DEPTH = 64;
}
