/**
 * The approval and settings console: a loopback-only web page a host can drop in — pending approval
 * requests with approve / deny, and the local user's settings (execution policy, trusted revisions
 * and their receipts, safe mode, the trust store, audit status) — served by the JDK's own HTTP
 * server. It shows and decides; it does not confine anything: an approved script runs with the host
 * user's files and network (not a sandbox).
 */
module dev.skillgate.console {
    requires transitive dev.skillgate.engine;
    requires jdk.httpserver;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires static org.apiguardian.api;

    exports dev.skillgate.console;
}
