package dev.skillgate.model;

import org.apiguardian.api.API;

/** Where a contract says a skill comes from (SPEC §5). */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum OriginType {
    /** A local skill nobody signed: needs first-use approval. */
    LOCAL_UNSIGNED("local-unsigned"),
    /** A skill whose publisher signed the contract and revision. */
    SIGNED("signed");

    private final String wireName;

    OriginType(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code skill.contract.json}. */
    public String wireName() {
        return wireName;
    }

    /** Looks up an origin type by its wire name. */
    public static OriginType fromWireName(String name) {
        return WireNames.lookup(values(), OriginType::wireName, name, "origin.type");
    }
}
