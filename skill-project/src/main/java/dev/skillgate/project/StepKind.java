package dev.skillgate.project;

import org.apiguardian.api.API;

/** Whether a script is a test or a build: decided by its name ({@code test}, {@code test:*}, {@code build}, {@code build:*}). */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum StepKind {
    /** {@code test} or {@code test:NAME}. */
    TEST,
    /** {@code build} or {@code build:NAME}. */
    BUILD
}
