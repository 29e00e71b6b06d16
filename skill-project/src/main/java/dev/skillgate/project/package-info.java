/**
 * The Node project profile: {@link dev.skillgate.project.ProjectInspector} (inert),
 * {@link dev.skillgate.project.ProjectPlan} (what a human approves) and
 * {@link dev.skillgate.project.ProjectRunner} (the supervised steps). Not a sandbox.
 */
package dev.skillgate.project;
