package dev.skillgate.model;

import org.apiguardian.api.API;

/** A kind of input an agent can supply to a skill (SPEC §5). */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum InputType {
    /** Plain text. */
    TEXT("text"),
    /** Images. */
    IMAGE("image"),
    /** Audio. */
    AUDIO("audio"),
    /** Video. */
    VIDEO("video"),
    /** Files. */
    FILE("file"),
    /** Structured data (JSON). */
    STRUCTURED_DATA("structured-data");

    private final String wireName;

    InputType(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code skill.contract.json}. */
    public String wireName() {
        return wireName;
    }

    /** Looks up an input type by its wire name. */
    public static InputType fromWireName(String name) {
        return WireNames.lookup(values(), InputType::wireName, name, "inputTypes");
    }
}
