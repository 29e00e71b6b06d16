package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * The fixed numeric bounds of SPEC §15, in one place.
 *
 * <p>Every bound is enforced by rejecting input past it, never by clamping. Bounds a manifest may
 * choose within a range are types ({@link Timeout}, {@link OutputLimit}) whose constructors reject
 * out-of-range values; the rest are constants here.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class Limits {
    private Limits() {}

    /** SKILL.md frontmatter, bytes. */
    public static final int FRONTMATTER_BYTES = 64 * 1024;

    /** {@code execution.json} and {@code skill.contract.json}, bytes of UTF-8. */
    public static final int MANIFEST_BYTES = 64 * 1024;

    /** Greatest JSON nesting depth in manifests, contracts, schemas and invocations. */
    public static final int JSON_DEPTH = 32;

    /** Most JSON nodes (values, including containers) in one document. */
    public static final int JSON_NODES = 4096;

    /** Most files a manifest may declare. */
    public static final int DECLARED_FILES = 64;

    /** Largest single captured file, bytes. */
    public static final int FILE_BYTES = 1024 * 1024;

    /** Largest total capture (SKILL.md, manifest, contract and declared files), bytes. */
    public static final int CAPTURE_BYTES = 4 * 1024 * 1024;

    /** Largest invocation JSON, bytes of UTF-8. */
    public static final int INVOCATION_BYTES = 64 * 1024;

    /** Fixed stderr capture, bytes; more terminates the run as an output-limit failure. */
    public static final int STDERR_BYTES = 16 * 1024;

    /** Grace between SIGTERM and SIGKILL, milliseconds. */
    public static final int TERMINATION_GRACE_MILLIS = 1000;

    /** Automatic attempts per execution: exactly one, never a retry. */
    public static final int AUTOMATIC_ATTEMPTS = 1;

    /** Consent window on the monotonic clock, nanoseconds (5 minutes). */
    public static final long CONSENT_WINDOW_NANOS = 5L * 60 * 1_000_000_000L;

    /** Most consent proposals per run. */
    public static final int PROPOSALS_PER_RUN = 64;

    /** Most trusted-revision scopes in a policy. */
    public static final int TRUSTED_SCOPES = 64;

    /** Most validation issues reported for one document. */
    public static final int VALIDATION_ISSUES = 20;

    /** Fewest {@code anyOf} branches. */
    public static final int ANY_OF_MIN = 2;

    /** Most {@code anyOf} branches. */
    public static final int ANY_OF_MAX = 4;
}
