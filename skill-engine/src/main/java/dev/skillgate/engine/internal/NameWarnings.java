package dev.skillgate.engine.internal;

import dev.skillgate.consent.SkillLocation;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Findings about a discovered skill's name that a human should see before trusting it (decisions
 * 0767, 0768), each a warning with a stable code. The check is bounded and documented:
 *
 * <ul>
 *   <li>{@code LAYOUT_NAME_NORMALISED}: the directory name differs from the skill name but matches it
 *       after NFKC normalisation and {@link Locale#ROOT} lower-casing of both (a full-width letter, a
 *       ligature, another case);
 *   <li>{@code NAME_DIR_MATCH}: the directory name differs from the skill name even then;
 *   <li>{@code LAYOUT_NAME_MIXED_SCRIPTS}: the directory name or the skill name has letters of more
 *       than one {@link Character.UnicodeScript} ({@code COMMON} and {@code INHERITED} do not count);
 *   <li>{@code LAYOUT_NAME_NON_ASCII}: the directory name or the skill name has a non-ASCII character
 *       and at least one ASCII letter (it may only look like an ASCII name, e.g. Latin {@code ɡ}).
 * </ul>
 *
 * <p>Non-ASCII characters are spelled {@code U+XXXX} in the messages so that look-alikes can be told
 * apart; at most the first 80 code points of a name are looked at. A heuristic for display: no
 * finding proves a name is what it looks like (whole-script look-alikes such as an all-Cyrillic
 * {@code раура} are only caught when they differ from the skill name). Not API.
 */
public final class NameWarnings {
    /** Longest prefix of a name that is examined, in code points. */
    static final int MAX_EXAMINED = 80;

    private NameWarnings() {}

    /** The findings for {@code skill} (empty when none applies). */
    public static List<Diagnostic> of(DiscoveredSkill skill) {
        List<Diagnostic> out = new ArrayList<>();
        Optional<Path> dir = skill.directory();
        String name = skill.name();
        if (dir.isPresent() && dir.get().getFileName() != null) {
            String dirName = dir.get().getFileName().toString();
            if (!dirName.equals(name)) {
                if (folded(dirName).equals(folded(name))) {
                    out.add(Diagnostic.warning(
                            ErrorCode.LAYOUT_NAME_NORMALISED,
                            "directory",
                            "the directory name '" + spelled(dirName) + "' only matches the skill name '"
                                    + spelled(name) + "' after Unicode normalisation or case folding"));
                } else {
                    out.add(Diagnostic.warning(
                            ErrorCode.NAME_DIR_MATCH,
                            "directory",
                            "the directory name '" + spelled(dirName) + "' differs from the skill name '"
                                    + spelled(name) + "'"));
                }
            }
            if (!ascii(dirName)) {
                mixed("directory", "directory name", dirName).ifPresent(out::add);
                nonAscii("directory", "directory name", dirName).ifPresent(out::add);
            }
        }
        if (!ascii(name)) {
            mixed("name", "skill name", name).ifPresent(out::add);
            nonAscii("name", "skill name", name).ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    /**
     * All ASCII: then neither of the two script findings can apply (ASCII letters are all of one
     * script, and there is no non-ASCII character), so the per-code-point checks are skipped.
     */
    private static boolean ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }

    /** Where {@code skill} was found, with its findings. */
    public static Optional<SkillLocation> location(DiscoveredSkill skill) {
        return skill.directory().map(d -> new SkillLocation(skill.root(), d, of(skill)));
    }

    private static String folded(String text) {
        return Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    }

    private static Optional<Diagnostic> mixed(String where, String what, String text) {
        TreeSet<String> scripts = new TreeSet<>();
        text.codePoints().limit(MAX_EXAMINED).forEach(cp -> {
            Character.UnicodeScript script = Character.UnicodeScript.of(cp);
            if (script != Character.UnicodeScript.COMMON && script != Character.UnicodeScript.INHERITED) {
                scripts.add(script.name());
            }
        });
        if (scripts.size() > 1) {
            return Optional.of(Diagnostic.warning(
                    ErrorCode.LAYOUT_NAME_MIXED_SCRIPTS,
                    where,
                    "the " + what + " '" + spelled(text) + "' mixes scripts (" + String.join(", ", scripts) + ")"));
        }
        return Optional.empty();
    }

    private static Optional<Diagnostic> nonAscii(String where, String what, String text) {
        boolean asciiLetter = text.codePoints()
                .limit(MAX_EXAMINED)
                .anyMatch(cp -> (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'));
        List<String> others = text.codePoints()
                .limit(MAX_EXAMINED)
                .filter(cp -> cp > 0x7F)
                .distinct()
                .limit(8)
                .mapToObj(cp -> String.format(
                        "U+%04X %s",
                        cp, Optional.ofNullable(Character.getName(cp)).orElse("")))
                .toList();
        if (asciiLetter && !others.isEmpty()) {
            return Optional.of(Diagnostic.warning(
                    ErrorCode.LAYOUT_NAME_NON_ASCII,
                    where,
                    "the " + what + " '" + spelled(text) + "' has non-ASCII characters among ASCII letters ("
                            + String.join(", ", others).strip() + ")"));
        }
        return Optional.empty();
    }

    /** ASCII as is, everything else as {@code U+XXXX}. */
    static String spelled(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(MAX_EXAMINED).forEach(cp -> {
            if (cp >= 0x20 && cp < 0x7F) {
                out.appendCodePoint(cp);
            } else {
                out.append(String.format("U+%04X", cp));
            }
        });
        return out.toString();
    }
}
