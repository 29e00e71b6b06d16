package dev.skillgate.model;

import org.apiguardian.api.API;

/** How much a {@link Diagnostic} matters to the verdict it belongs to. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum Severity {
    /** Fails the verdict it is reported under. */
    ERROR,
    /** Does not fail the verdict, but a human should know (e.g. a preserved host extension). */
    WARNING,
    /** Informational only. */
    INFO
}
