package dev.skillgate.tools;

import dev.skillgate.model.Revision;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One skill whose script can be offered to the model as a tool: its name (also the tool's name),
 * its description and its {@code inputSchema} exactly as the captured manifest holds it.
 *
 * <p>Offering a tool grants nothing: every call still goes through {@code SkillGate.execute}, which
 * re-captures the skill, validates the input against the schema of that capture and asks the human.
 * The schema and revision here are from the capture made when the tools were listed; an edit after
 * that is a new revision, checked and approved as such.
 *
 * @param name the skill's name
 * @param description the skill's description (untrusted text: the model reads it as data)
 * @param inputSchemaJson the {@code inputSchema} as JSON text (inside the bounded schema subset)
 * @param revision the revision of the capture the schema comes from
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ExecutableSkill(String name, String description, String inputSchemaJson, Revision revision) {
    public ExecutableSkill {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchemaJson, "inputSchemaJson");
        Objects.requireNonNull(revision, "revision");
    }

    /** The tool description shown to the model: the skill's description and how the call is gated. */
    public String toolDescription() {
        return description + "\n\nRuns the skill's script (" + revision
                + ") only after the user approves this exact input; the input is the skill's inputSchema.";
    }
}
