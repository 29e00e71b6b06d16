/**
 * The {@code SkillGate} facade: discovery, capture, input validation, gates, policy, exact consent,
 * re-checks, the Node runner under a process supervisor, and the settlement registry, in one call.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.engine {
    requires transitive dev.skillgate.model;
    requires transitive dev.skillgate.inspect;
    requires transitive dev.skillgate.consent;
    requires transitive dev.skillgate.runner;
    requires transitive dev.skillgate.audit;
    requires transitive dev.skillgate.workflow;
    requires transitive dev.skillgate.project;
    requires transitive dev.skillgate.runner.linux;
    requires static org.apiguardian.api;

    exports dev.skillgate.engine;

    uses dev.skillgate.runner.ProcessSupervisor;
    uses dev.skillgate.audit.AuditSink;
    uses dev.skillgate.inspect.ContractDialect;
}
