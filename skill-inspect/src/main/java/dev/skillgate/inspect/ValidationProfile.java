package dev.skillgate.inspect;

import java.util.Locale;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Which reading of the Agent Skills standard a validation applies.
 *
 * <p>{@link #STRICT} reads the published specification literally (ASCII names, {@code compatibility}
 * 1–500 characters when present, {@code metadata} a map of strings, one-string {@code license} and
 * {@code allowed-tools}, unknown keys reported). {@link #REFERENCE_COMPATIBLE} mirrors the reference
 * validator {@code skills-ref}: its Unicode/NFKC name rule, its trimming, its checks and its exact
 * message texts. Both profiles share the same safe parser (line-anchored delimiters, strict UTF-8,
 * YAML limits); the deliberate differences from the reference are listed in {@code
 * docs/agent-skills.md}. Neither profile grants anything: frontmatter never changes execution.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum ValidationProfile {
    /** The standard read literally; the default. */
    STRICT("strict"),
    /** Mirrors the reference validator {@code skills-ref}, including its messages. */
    REFERENCE_COMPATIBLE("reference");

    private final String cliName;

    ValidationProfile(String cliName) {
        this.cliName = cliName;
    }

    /** The short name used on the command line and in JSON output ({@code strict}, {@code reference}). */
    public String cliName() {
        return cliName;
    }

    /** Looks a profile up by its {@link #cliName()} or constant name, case-insensitively. */
    public static Optional<ValidationProfile> find(String name) {
        String key = name.trim().toLowerCase(Locale.ROOT);
        for (ValidationProfile p : values()) {
            if (p.cliName.equals(key) || p.name().toLowerCase(Locale.ROOT).equals(key)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
