package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.Finding;
import dev.skillgate.inspect.SkillDocument;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.shared.Text;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Validates one skill: finds its {@code SKILL.md}, reads it through the bounded reader, parses it
 * and applies the profile's field rules. Pure inspection: nothing here executes, imports or opens
 * anything but the one file, which is checked to be a regular file first.
 */
public final class Inspector {
    static final PortablePath SKILL_MD = PortablePath.of("SKILL.md");
    static final PortablePath SKILL_MD_LOWER = PortablePath.of("skill.md");

    private Inspector() {}

    /** Validates the skill directory at {@code path} (the reference validator's stage 1, then the rest). */
    public static ValidationReport validateDirectory(Path path, ValidationProfile profile) {
        String shown = quotePath(path);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return failed(
                    path, profile, FieldRules.blocking(ErrorCode.LAYOUT_PATH, "", "Path does not exist: " + shown));
        } catch (IOException e) {
            return failed(path, profile, new Finding(ReaderCore.ioProblem("", e), true, true));
        }
        if (attrs.isSymbolicLink()) {
            return failed(
                    path,
                    profile,
                    FieldRules.blocking(
                            ErrorCode.LAYOUT_LINK, "", "Path is a symbolic link; links are never followed: " + shown));
        }
        if (!attrs.isDirectory()) {
            return failed(path, profile, FieldRules.blocking(ErrorCode.LAYOUT_DIR, "", "Not a directory: " + shown));
        }
        ReaderCore reader = ReaderCore.open(path, List.of(), Limits.FILE_BYTES);
        Path name = reader.root().getFileName();
        return inspect(reader, path, name == null ? "" : name.toString(), profile);
    }

    /** Validates the skill whose directory is {@code reader}'s root. */
    public static ValidationReport inspect(
            ReaderCore reader, Path shownPath, String directoryName, ValidationProfile profile) {
        List<Finding> findings = new ArrayList<>();
        Optional<Diagnostic> rootProblem = reader.rootProblem();
        if (rootProblem.isPresent()) {
            return failed(shownPath, profile, new Finding(rootProblem.get(), true, true));
        }
        PortablePath file = SKILL_MD;
        FileContent content;
        try {
            content = reader.read(SKILL_MD, Limits.FILE_BYTES, false);
        } catch (Refusal r) {
            if (r.diagnostic().code() != ErrorCode.READ_NOT_FOUND
                    || !r.diagnostic().location().equals(SKILL_MD.value())) {
                return failed(shownPath, profile, new Finding(r.diagnostic(), true, true));
            }
            try {
                content = reader.read(SKILL_MD_LOWER, Limits.FILE_BYTES, false);
                file = SKILL_MD_LOWER;
                findings.add(FieldRules.warning(
                        ErrorCode.LAYOUT_SKILLMD_CASE,
                        file.value(),
                        "Found skill.md; the standard names the file SKILL.md (read as a compatibility fallback)"));
            } catch (Refusal lower) {
                if (lower.diagnostic().code() == ErrorCode.READ_NOT_FOUND) {
                    return failed(
                            shownPath,
                            profile,
                            FieldRules.blocking(ErrorCode.LAYOUT_SKILLMD, "", "Missing required file: SKILL.md"));
                }
                return failed(shownPath, profile, new Finding(lower.diagnostic(), true, true));
            }
        }
        return fromBytes(content.bytes(), file.value(), directoryName, "Directory", shownPath, profile, findings);
    }

    /**
     * Validates a legacy flat skill file {@code fileName} directly in {@code reader}'s root: the name
     * must match the file's stem; the skill is never portable and has no bundle directory.
     */
    public static Optional<ValidationReport> inspectLegacy(
            ReaderCore reader, String fileName, Path shownPath, ValidationProfile profile) {
        if (!PortablePath.isValid(fileName)) {
            return Optional.empty();
        }
        FileContent content;
        try {
            content = reader.read(PortablePath.of(fileName), Limits.FILE_BYTES, false);
        } catch (Refusal r) {
            return Optional.of(failed(shownPath, profile, new Finding(r.diagnostic(), true, true)));
        }
        byte[] bytes = content.bytes();
        if (bytes.length < 3 || bytes[0] != '-' || bytes[1] != '-' || bytes[2] != '-') {
            return Optional.empty(); // a README or notes, not a skill
        }
        List<Finding> findings = new ArrayList<>();
        findings.add(FieldRules.portable(
                ErrorCode.LAYOUT_LEGACY_FLAT,
                fileName,
                "'" + Text.excerpt(fileName)
                        + "' is a legacy flat skill file: loadable for compatibility, not portable (a skill is a"
                        + " directory with SKILL.md); it has no bundle directory and borrows no neighbour's files"));
        String stem = fileName.substring(0, fileName.length() - 3);
        return Optional.of(fromBytes(bytes, fileName, stem, "File", shownPath, profile, findings));
    }

    /** Validates {@code SKILL.md} bytes as if they were in a directory named {@code directoryName}. */
    public static ValidationReport validateBytes(
            byte[] bytes, String directoryName, Path shownPath, ValidationProfile profile) {
        return fromBytes(bytes, SKILL_MD.value(), directoryName, "Directory", shownPath, profile, new ArrayList<>());
    }

    private static ValidationReport fromBytes(
            byte[] bytes,
            String fileName,
            String containerName,
            String containerKind,
            Path shownPath,
            ValidationProfile profile,
            List<Finding> findings) {
        SkillMdParser.Parts parts;
        try {
            parts = SkillMdParser.parse(bytes, fileName, profile);
        } catch (Refusal r) {
            findings.add(new Finding(r.diagnostic(), true, true));
            return new ValidationReport(shownPath, profile, Optional.empty(), findings);
        }
        SkillDocument document = new SkillDocument(bytes, fileName, parts.frontmatter(), parts.body(), parts.fields());
        findings.addAll(FieldRules.check(parts.fields(), containerName, containerKind, profile));
        return new ValidationReport(shownPath, profile, Optional.of(document), findings);
    }

    private static ValidationReport failed(Path path, ValidationProfile profile, Finding finding) {
        return new ValidationReport(path, profile, Optional.empty(), List.of(finding));
    }

    /** A caller-given path for a message: escaped and bounded. */
    static String quotePath(Path path) {
        return Text.sanitize(path.toString(), 200);
    }
}
