package dev.skillgate.consent;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Where the skill an approval request asks about was found: the skill root and its directory, and
 * findings about its name (decisions 0767, 0768).
 *
 * <p>A finding has a stable code: {@code NAME_DIR_MATCH} (the directory name differs from the skill
 * name), {@code LAYOUT_NAME_NORMALISED} (they only match after Unicode NFKC normalisation or case
 * folding), {@code LAYOUT_NAME_MIXED_SCRIPTS} (the directory or skill name mixes scripts, e.g. a
 * Cyrillic {@code е} among Latin letters) or {@code LAYOUT_NAME_NON_ASCII} (a non-ASCII character
 * among ASCII letters), so that two skills that look alike to a human can be told apart. The paths
 * are what discovery saw; they are shown, never opened, through this object. The messages are short
 * display text (cut and escaped, non-ASCII spelled {@code U+XXXX}); the absence of a finding proves
 * nothing about the skill.
 *
 * @param root the skill root the skill was found under (absolute)
 * @param directory the skill's directory (absolute)
 * @param findings name findings (warnings), at most {@value #MAX_WARNINGS}
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SkillLocation(Path root, Path directory, List<Diagnostic> findings) {
    /** Most findings kept. */
    public static final int MAX_WARNINGS = 8;

    public SkillLocation {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(directory, "directory");
        List<Diagnostic> kept = new ArrayList<>();
        for (Diagnostic d : findings) {
            if (kept.size() == MAX_WARNINGS) {
                break;
            }
            kept.add(Objects.requireNonNull(d, "finding"));
        }
        findings = List.copyOf(kept);
    }

    /** Whether the name drew a finding (a human should look twice). */
    public boolean flagged() {
        return !findings.isEmpty();
    }

    /** The codes of the findings, in order. */
    public List<ErrorCode> codes() {
        return findings.stream().map(Diagnostic::code).toList();
    }

    /** Each finding as one display line: {@code CODE: message}. */
    public List<String> warnings() {
        return findings.stream().map(d -> d.code() + ": " + d.message()).toList();
    }
}
