package dev.skillgate.project;

import org.apiguardian.api.API;

/** The supported script forms (seed ADR-007). Every other form is refused with its own code. */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum StepForm {
    /** {@code node --test P1 … Pn}: 1–8 exact {@code *.test.js} / {@code *.test.mjs} paths (test only). */
    NODE_TEST,
    /** {@code node P}: one exact {@code .js}/{@code .mjs}/{@code .cjs} test or build entrypoint. */
    NODE_ENTRYPOINT,
    /**
     * {@code tsc --project P}: one exact inspected {@code tsconfig*.json}, run as the installed
     * {@code typescript} package's own {@code bin/tsc} by the pinned {@code node} (build only).
     */
    TSC_PROJECT
}
