package dev.skillgate.engine.internal;

import dev.skillgate.consent.SkillLocation;
import dev.skillgate.inspect.DiscoveredSkill;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Warnings about a discovered skill's name that a human should see before trusting it (decision
 * 0767): a directory name that differs from the skill name, or only matches it after Unicode
 * normalisation; and a directory or skill name that mixes scripts (e.g. a Cyrillic {@code е} among
 * Latin letters). Non-ASCII characters are spelled {@code U+XXXX} in the warning so that look-alikes
 * can be told apart. A heuristic for display: no warning proves a name is what it looks like. Not API.
 */
public final class NameWarnings {
    private NameWarnings() {}

    /** The warnings for {@code skill} (empty when none applies). */
    public static List<String> of(DiscoveredSkill skill) {
        List<String> out = new ArrayList<>();
        Optional<Path> dir = skill.directory();
        String name = skill.name();
        if (dir.isPresent() && dir.get().getFileName() != null) {
            String dirName = dir.get().getFileName().toString();
            if (!dirName.equals(name)) {
                boolean afterNormalising = Normalizer.normalize(dirName, Normalizer.Form.NFKC)
                        .equals(Normalizer.normalize(name, Normalizer.Form.NFKC));
                out.add("the directory name '" + spelled(dirName) + "' "
                        + (afterNormalising ? "only matches" : "differs from") + " the skill name '" + spelled(name)
                        + "'" + (afterNormalising ? " after Unicode normalisation" : ""));
            }
            mixed("directory name", dirName).ifPresent(out::add);
        }
        mixed("skill name", name).ifPresent(out::add);
        return List.copyOf(out);
    }

    /** Where {@code skill} was found, with its warnings. */
    public static Optional<SkillLocation> location(DiscoveredSkill skill) {
        return skill.directory().map(d -> new SkillLocation(skill.root(), d, of(skill)));
    }

    private static Optional<String> mixed(String what, String text) {
        TreeSet<String> scripts = new TreeSet<>();
        text.codePoints().forEach(cp -> {
            Character.UnicodeScript script = Character.UnicodeScript.of(cp);
            if (script != Character.UnicodeScript.COMMON && script != Character.UnicodeScript.INHERITED) {
                scripts.add(script.name());
            }
        });
        if (scripts.size() > 1) {
            return Optional.of(
                    "the " + what + " '" + spelled(text) + "' mixes scripts (" + String.join(", ", scripts) + ")");
        }
        return Optional.empty();
    }

    /** ASCII as is, everything else as {@code U+XXXX}. */
    static String spelled(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(80).forEach(cp -> {
            if (cp >= 0x20 && cp < 0x7F) {
                out.appendCodePoint(cp);
            } else {
                out.append(String.format("U+%04X", cp));
            }
        });
        return out.toString();
    }
}
