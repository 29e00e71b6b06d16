/**
 * PostgreSQL backends for hosts that run many instances on one database: a
 * {@link dev.skillgate.workflow.WorkflowStore} (atomic leases and fencing tokens on the database's
 * clock), a {@link dev.skillgate.consent.spi.PolicyStore} whose updates hold a row lock so a receipt is
 * minted once across instances, and an {@link dev.skillgate.audit.AuditSink} that appends every
 * exported record with its sequence and chain hash. Schema migrations ship in the jar and are applied
 * by {@link dev.skillgate.store.postgres.PostgresSchema#migrate}. Uses {@code java.sql} only;
 * connection pooling is the host's {@code DataSource}; the pgjdbc driver comes with the module.
 */
module dev.skillgate.store.postgres {
    requires transitive dev.skillgate.workflow;
    requires transitive dev.skillgate.consent;
    requires transitive dev.skillgate.audit;
    requires transitive java.sql;
    requires static org.apiguardian.api;

    exports dev.skillgate.store.postgres;
}
