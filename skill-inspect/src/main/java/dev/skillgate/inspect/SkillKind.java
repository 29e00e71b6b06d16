package dev.skillgate.inspect;

import org.apiguardian.api.API;

/** How a discovered skill is laid out. */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public enum SkillKind {
    /** A directory holding {@code SKILL.md}: the standard layout. */
    STANDARD,
    /** A directory holding only a lowercase {@code skill.md}: a reported compatibility fallback. */
    LOWERCASE_FILE,
    /**
     * A flat {@code NAME.md} file directly in a root: a legacy compatibility path, never portable,
     * with no bundle directory (it never borrows a neighbouring folder's files or manifest).
     */
    LEGACY_FLAT
}
