package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.Inspector;
import java.nio.file.Path;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Validates skill bundles against the Agent Skills standard, inertly.
 *
 * <p>Validation reads exactly one file, the skill's {@code SKILL.md} (or the reported {@code
 * skill.md} fallback), through the bounded reader: at most 1 MiB, never through a link, never from a
 * FIFO, device or directory. It never executes, imports or installs anything and never opens any
 * other bundle file. Every outcome, including unreadable or hostile files, is a {@link
 * ValidationReport}; no exception is thrown for bad input.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillValidator {
    private SkillValidator() {}

    /** Validates the skill directory {@code skillDirectory} under the {@link ValidationProfile#STRICT} profile. */
    public static ValidationReport validate(Path skillDirectory) {
        return validate(skillDirectory, ValidationProfile.STRICT);
    }

    /**
     * Validates the skill directory {@code skillDirectory} under {@code profile}. The path must be
     * the directory itself (not its {@code SKILL.md}); a path that does not exist, is a symbolic
     * link or is not a directory gives a {@code LAYOUT_*} finding.
     */
    public static ValidationReport validate(Path skillDirectory, ValidationProfile profile) {
        Objects.requireNonNull(skillDirectory, "skillDirectory");
        Objects.requireNonNull(profile, "profile");
        return Inspector.validateDirectory(skillDirectory, profile);
    }

    /**
     * Validates {@code SKILL.md} bytes held in memory, as if they sat in a directory named {@code
     * directoryName}. Nothing is read from disk.
     */
    public static ValidationReport validateBytes(byte[] skillMd, String directoryName, ValidationProfile profile) {
        Objects.requireNonNull(skillMd, "skillMd");
        Objects.requireNonNull(directoryName, "directoryName");
        Objects.requireNonNull(profile, "profile");
        return Inspector.validateBytes(skillMd.clone(), directoryName, Path.of(safeName(directoryName)), profile);
    }

    private static String safeName(String directoryName) {
        // Only used as the report's display path; a name no path can hold is shown neutrally.
        boolean usable = !directoryName.isEmpty() && directoryName.indexOf('\0') < 0 && directoryName.indexOf('/') < 0;
        return usable ? directoryName : "skill";
    }
}
