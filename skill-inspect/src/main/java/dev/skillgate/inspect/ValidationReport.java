package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.PyText;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The result of validating one skill: its findings and the two verdicts of SPEC §3.
 *
 * <p><b>Portable</b> — the standard read under the chosen profile; {@code skillgate validate}
 * exits by it. <b>Loadable</b> — whether a host may use the skill as prompt material: the file was
 * read safely, the frontmatter parsed within its limits, and {@code name} and {@code description}
 * are non-empty text; other rule breaks are reported but do not block loading (the lenient loading
 * of the standard's client guide). Unknown and host-specific keys never block loading; they are
 * preserved and reported, not enforced. Neither verdict says anything about execution, which
 * needs its own manifest and consent.
 *
 * @param path the skill directory (or legacy file) that was validated
 * @param profile the profile applied
 * @param document the parsed document, when the file could be read and parsed
 * @param findings every finding, in the order the checks ran
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ValidationReport(
        Path path, ValidationProfile profile, Optional<SkillDocument> document, List<Finding> findings) {
    public ValidationReport {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(document, "document");
        findings = List.copyOf(findings);
    }

    /** Whether the skill passes the portable verdict (no finding blocks it). */
    public boolean portable() {
        // Loops, not streams: `skillgate validate` asks this in a fresh JVM (decision 0860).
        for (Finding f : findings) {
            if (f.blocksPortable()) {
                return false;
            }
        }
        return true;
    }

    /** Whether a host may load the skill as prompt material (no finding blocks loading). */
    public boolean loadable() {
        for (Finding f : findings) {
            if (f.blocksLoading()) {
                return false;
            }
        }
        return true;
    }

    /** Every diagnostic, in order. */
    public List<Diagnostic> diagnostics() {
        return findings.stream().map(Finding::diagnostic).toList();
    }

    /** The diagnostics that fail the portable verdict, in order. */
    public List<Diagnostic> portableErrors() {
        List<Diagnostic> out = new ArrayList<>();
        for (Finding f : findings) {
            if (f.blocksPortable()) {
                out.add(f.diagnostic());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** The diagnostics that block loading, in order. */
    public List<Diagnostic> loadErrors() {
        return findings.stream()
                .filter(Finding::blocksLoading)
                .map(Finding::diagnostic)
                .toList();
    }

    /** Whether some finding carries {@code code}. */
    public boolean has(ErrorCode code) {
        return findings.stream().anyMatch(f -> f.diagnostic().code() == code);
    }

    /** The skill's name as loaded (trimmed), when the document has a non-empty scalar name. */
    public Optional<String> skillName() {
        return document.isPresent() ? stripped(document.get().name()) : Optional.empty();
    }

    /** The skill's description as loaded (trimmed), when it is non-empty text. */
    public Optional<String> skillDescription() {
        return document.isPresent() ? stripped(document.get().description()) : Optional.empty();
    }

    private static Optional<String> stripped(Optional<String> text) {
        if (text.isEmpty()) {
            return Optional.empty();
        }
        String s = PyText.strip(text.get());
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }
}
