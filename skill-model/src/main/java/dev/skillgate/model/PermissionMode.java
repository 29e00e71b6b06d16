package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * How much a skill may change, as declared by its contract and granted by an agent context.
 * Ordered: each mode includes the ones before it. A declaration, not an enforcement: Skillgate does
 * not confine a running script (no sandbox).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum PermissionMode {
    /** Reads only. */
    READ_ONLY("read-only"),
    /** May write inside the workspace. */
    WORKSPACE_WRITE("workspace-write"),
    /** Anything the host user can do. */
    FULL_ACCESS("full-access");

    private final String wireName;

    PermissionMode(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code skill.contract.json}. */
    public String wireName() {
        return wireName;
    }

    /** Whether this mode includes {@code other}. */
    public boolean includes(PermissionMode other) {
        return compareTo(other) >= 0;
    }

    /** Looks up a mode by its wire name. */
    public static PermissionMode fromWireName(String name) {
        return WireNames.lookup(values(), PermissionMode::wireName, name, "permissionMode");
    }
}
