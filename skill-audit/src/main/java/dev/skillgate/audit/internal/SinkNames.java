package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditSink;
import java.util.Objects;

/** The check of an {@link AuditSink}'s name. Not API. */
public final class SinkNames {
    private SinkNames() {}

    /**
     * The sink's name, checked against {@link AuditSink#NAME}.
     *
     * @throws IllegalArgumentException when the name is missing or malformed
     */
    public static String checked(AuditSink sink) {
        Objects.requireNonNull(sink, "sink");
        String name = sink.name();
        if (name == null || !AuditSink.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "an audit sink name is 1-64 of [a-z0-9.-], starting with a letter or digit");
        }
        return name;
    }
}
