package dev.skillgate.model;

/** How much a {@link Diagnostic} matters to the verdict it belongs to. */
public enum Severity {
    /** Fails the verdict it is reported under. */
    ERROR,
    /** Does not fail the verdict, but a human should know (e.g. a preserved host extension). */
    WARNING,
    /** Informational only. */
    INFO
}
