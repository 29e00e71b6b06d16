/**
 * The agent-facing {@link dev.skillgate.engine.SkillGate} facade and the host's settings-side
 * {@link dev.skillgate.engine.SkillGateAdmin}. Not a sandbox.
 */
package dev.skillgate.engine;
