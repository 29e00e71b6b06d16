package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * The family an {@link ErrorCode} belongs to, in the order the pipeline meets them.
 *
 * <p>Groups are for documentation and reporting only; code never branches on a group where it
 * could branch on the exact code.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum ErrorGroup {
    /** Bundle layout and discovery (SPEC §3). */
    LAYOUT,
    /** SKILL.md frontmatter syntax and encoding (SPEC §3). */
    FRONTMATTER,
    /** Agent Skills field rules (SPEC §3; rule ids of the conformance cases). */
    FIELD,
    /** Host-specific rules that are reported, never enforced by default. */
    HOST,
    /** Relative path rules (SPEC §4). */
    PATH,
    /** The bounded, link-refusing reader (SPEC §7). */
    READ,
    /** The execution manifest {@code execution.json} (SPEC §4). */
    MANIFEST,
    /** The bounded JSON-Schema subset gate (SPEC §6). */
    SCHEMA,
    /** Strict JSON decoding of invocations and results (SPEC §6). */
    JSON,
    /** Validation of JSON data against a gated schema (SPEC §6). */
    VALUE,
    /** Artifact capture (SPEC §7). */
    CAPTURE,
    /** The trust contract and its enforcement against an agent context (SPEC §5). */
    CONTRACT,
    /** Publisher signatures (SPEC §5). */
    SIGNATURE,
    /** Consent proposals and grants (SPEC §8). */
    CONSENT,
    /** Execution policy and launch gates (SPEC §8). */
    POLICY,
    /** The pinned Node runtime (SPEC §10). */
    RUNTIME,
    /** Private staging of a captured artifact (SPEC §10). */
    STAGING,
    /** A launched execution and its output (SPEC §10). */
    EXECUTION,
    /** Process supervision and cleanup proof (SPEC §10, §11). */
    SUPERVISION,
    /** The trust audit log and trust store (SPEC §9). */
    AUDIT,
    /** The durable workflow store: records, envelope encryption, ownership and recovery (SPEC §20). */
    WORKFLOW,
    /** The Node project profile: inspected package.json scripts run as exact direct argv (seed ADR-007). */
    PROJECT,
    /** Command-line usage (SPEC §13). */
    CLI
}
