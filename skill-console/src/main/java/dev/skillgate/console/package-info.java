/**
 * The approval and settings console ({@link dev.skillgate.console.ApprovalConsole}): an
 * {@link dev.skillgate.consent.spi.ApprovalChannel} with a web page on {@code 127.0.0.1} or
 * {@code ::1}, and the local user's settings page over a {@link dev.skillgate.engine.SkillGateAdmin}.
 * See {@code docs/console.md} for the security of the page. Not a sandbox.
 */
package dev.skillgate.console;
