package dev.skillgate.project;

import dev.skillgate.model.Diagnostic;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What the inspector made of one {@code scripts} entry: a supported step, or a refusal with a stable
 * {@code PROJECT_*} code. Nothing is run to decide either.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public sealed interface ScriptVerdict permits ScriptVerdict.Supported, ScriptVerdict.Refused {

    /** The script's name. */
    String name();

    /** The script's text as written. */
    String source();

    /**
     * A supported script.
     *
     * @param name the script's name
     * @param source its text
     * @param step the resolved step
     */
    record Supported(String name, String source, ProjectStep step) implements ScriptVerdict {
        public Supported {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(step, "step");
        }
    }

    /**
     * A refused script.
     *
     * @param name the script's name
     * @param source its text
     * @param reason why, with its {@code PROJECT_*} code
     */
    record Refused(String name, String source, Diagnostic reason) implements ScriptVerdict {
        public Refused {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(reason, "reason");
        }
    }
}
