/**
 * Skillgate for Google ADK for Java: {@link dev.skillgate.adk.SkillgateToolset} (the {@code
 * list_skills}, {@code load_skill}, {@code load_skill_resource} and {@code run_skill_script} tools
 * ADK's own skill prompt names, plus one tool per executable skill) and {@link
 * dev.skillgate.adk.AdkApprovals} (Skillgate's approval requests carried by ADK's tool
 * confirmation).
 */
package dev.skillgate.adk;
