package dev.skillgate.inspect.internal;

import java.util.Optional;
import java.util.Set;

/**
 * Top-level frontmatter keys that a known host documents. Knowing them lets reports tell a host
 * extension (preserved, not enforced, not portable) from an unknown key (often a typo). Knowing a
 * key never gives it meaning here.
 */
public final class HostExtensions {
    /** Claude Code's documented extension fields (code.claude.com/docs/en/skills). */
    static final Set<String> CLAUDE_CODE = Set.of(
            "when_to_use",
            "argument-hint",
            "arguments",
            "disable-model-invocation",
            "user-invocable",
            "disallowed-tools",
            "model",
            "effort",
            "context",
            "agent",
            "background",
            "hooks",
            "paths",
            "shell");

    private HostExtensions() {}

    /** The host documenting {@code key}, if any. */
    public static Optional<String> hostOf(String key) {
        return CLAUDE_CODE.contains(key) ? Optional.of("Claude Code") : Optional.empty();
    }
}
