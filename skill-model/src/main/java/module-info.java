/**
 * Skillgate's shared vocabulary: names, portable paths, digests and revisions, limits, error
 * codes, diagnostics, the execution manifest, the trust contract and the execution envelope.
 *
 * <p>Depends on the JDK only. Every type is an immutable value whose constructor rejects invalid
 * input with an {@link dev.skillgate.model.InvalidValueException} carrying a stable
 * {@link dev.skillgate.model.ErrorCode}. Nothing in this module performs I/O or runs anything.
 */
module dev.skillgate.model {
    requires static org.apiguardian.api;

    exports dev.skillgate.model;
    // Sibling-only helpers (decision 0634): exported to the modules that use them, never to hosts.
    exports dev.skillgate.model.shared to
            dev.skillgate.audit,
            dev.skillgate.cli,
            dev.skillgate.consent,
            dev.skillgate.engine,
            dev.skillgate.inspect,
            dev.skillgate.project,
            dev.skillgate.runner,
            dev.skillgate.runner.linux,
            dev.skillgate.signature;
}
