package dev.skillgate.consent;

import dev.skillgate.model.Text;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Where the skill an approval request asks about was found: the skill root and its directory, and
 * warnings about its name (decision 0767).
 *
 * <p>A warning says that the directory's name only matches the skill's name after Unicode
 * normalisation, or that the directory or skill name mixes scripts (e.g. a Cyrillic {@code е} among
 * Latin letters), so that two skills that look alike to a human can be told apart. The paths are
 * what discovery saw; they are shown, never opened, through this object. The warnings are
 * short display text (cut and escaped); their absence proves nothing about the skill.
 *
 * @param root the skill root the skill was found under (absolute)
 * @param directory the skill's directory (absolute)
 * @param warnings name warnings, at most {@value #MAX_WARNINGS}, each at most
 *     {@value #MAX_WARNING} code points
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SkillLocation(Path root, Path directory, List<String> warnings) {
    /** Most warnings kept. */
    public static final int MAX_WARNINGS = 8;

    /** Longest warning kept, in code points. */
    public static final int MAX_WARNING = 200;

    public SkillLocation {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(directory, "directory");
        List<String> kept = new ArrayList<>();
        for (String w : warnings) {
            if (kept.size() == MAX_WARNINGS) {
                break;
            }
            kept.add(Text.sanitize(Objects.requireNonNull(w, "warning"), MAX_WARNING));
        }
        warnings = List.copyOf(kept);
    }

    /** Whether the name drew a warning (a human should look twice). */
    public boolean flagged() {
        return !warnings.isEmpty();
    }
}
