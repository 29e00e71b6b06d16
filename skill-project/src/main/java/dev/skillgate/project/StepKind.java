package dev.skillgate.project;

/** Whether a script is a test or a build: decided by its name ({@code test}, {@code test:*}, {@code build}, {@code build:*}). */
public enum StepKind {
    /** {@code test} or {@code test:NAME}. */
    TEST,
    /** {@code build} or {@code build:NAME}. */
    BUILD
}
