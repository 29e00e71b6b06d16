/**
 * The durable workflow store (SPEC §20, seed ADR-0114): versioned records of a host-verified
 * workflow — its definition, each step's exact input and digest, its checked output, its outcome and
 * cleanup proof — and its owner (instance, process identity where local, lease, fencing token).
 *
 * <p>Every record is sealed with AES-256-GCM under its own data key, wrapped by a host
 * {@link dev.skillgate.workflow.KeyProvider}. Depends on {@code dev.skillgate.model} and the JDK only.
 * It stores no consent and no runnable grant: after a restart or takeover every remaining step needs
 * fresh run-scoped consent from the engine.
 */
module dev.skillgate.workflow {
    requires transitive dev.skillgate.model;
    requires static org.apiguardian.api;

    exports dev.skillgate.workflow;
}
