/**
 * The Skillgate testkit: a JUnit 5 extension giving each test a private data directory and a
 * {@code SkillGate} with scripted approvals, fluent builders for valid and hostile skill bundles,
 * the adversarial Node fixtures, and AssertJ assertions for envelopes and audit trails; and contract
 * test classes (TCKs) for implementers of Skillgate's SPIs ({@code dev.skillgate.testkit.contract}).
 *
 * <p>A test library: JUnit Jupiter's API and AssertJ are part of its API. Nothing here is a sandbox,
 * and scripted approvals stand in for a human only in tests.
 */
module dev.skillgate.testkit {
    requires transitive dev.skillgate.engine;
    requires transitive dev.skillgate.fixtures;
    requires transitive dev.skillgate.workflow;
    requires transitive org.junit.jupiter.api;
    requires transitive org.assertj.core;
    requires static org.apiguardian.api;

    exports dev.skillgate.testkit;
    exports dev.skillgate.testkit.contract;
    exports dev.skillgate.testkit.postgres;
}
