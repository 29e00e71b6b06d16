package dev.skillgate.model;

import org.apiguardian.api.API;

/** The side effects a contract declares, from none to writes outside the machine. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum SideEffectClass {
    /** No side effects. */
    NONE("none"),
    /** Writes inside the workspace. */
    WORKSPACE_WRITE("workspace-write"),
    /** Writes to external systems over the network. */
    EXTERNAL_WRITE("external-write");

    private final String wireName;

    SideEffectClass(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code skill.contract.json}. */
    public String wireName() {
        return wireName;
    }

    /** Looks up a class by its wire name. */
    public static SideEffectClass fromWireName(String name) {
        return WireNames.lookup(values(), SideEffectClass::wireName, name, "sideEffectClass");
    }
}
