package dev.skillgate.tools;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * How one executable skill's {@code inputSchema} was mapped onto a framework's tool parameters.
 *
 * <p>A schema is offered only when every keyword that constrains a value survives the mapping
 * exactly; otherwise the tool is not offered and {@link #problems()} says why ({@code
 * SCHEMA_NOT_EXPRESSIBLE} with the JSON pointer). Root annotations a framework type has no field for
 * ({@code title}, {@code default}, {@code examples}, {@code $schema}) constrain nothing; they are
 * listed in {@link #droppedAnnotations()}, never dropped silently. Either way the engine validates
 * every call against the captured schema itself.
 *
 * @param skill the skill (and tool) name
 * @param offered whether the tool is offered
 * @param droppedAnnotations JSON pointers of annotations the framework's type cannot carry
 * @param problems why the tool is not offered; empty when it is
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record SchemaReport(String skill, boolean offered, List<String> droppedAnnotations, List<Diagnostic> problems) {
    public SchemaReport {
        Objects.requireNonNull(skill, "skill");
        droppedAnnotations = List.copyOf(droppedAnnotations);
        problems = List.copyOf(problems);
        if (offered != problems.isEmpty()) {
            throw new IllegalArgumentException("an offered tool has no problems, a withheld one has some");
        }
    }
}
