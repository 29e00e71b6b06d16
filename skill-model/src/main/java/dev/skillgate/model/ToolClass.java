package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * A class of agent tools a skill needs (SPEC §5). A declaration checked against the agent context;
 * it never grants a tool.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum ToolClass {
    /** The agent's own built-in tools. */
    AGENT_NATIVE("agent-native"),
    /** File system read and write. */
    FILESYSTEM("filesystem"),
    /** File system read only. */
    FILESYSTEM_READ("filesystem-read"),
    /** A shell. */
    SHELL("shell"),
    /** Network access. */
    NETWORK("network"),
    /** A browser. */
    BROWSER("browser");

    private final String wireName;

    ToolClass(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code skill.contract.json}. */
    public String wireName() {
        return wireName;
    }

    /** Looks up a tool class by its wire name. */
    public static ToolClass fromWireName(String name) {
        return WireNames.lookup(values(), ToolClass::wireName, name, "tools");
    }
}
