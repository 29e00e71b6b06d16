package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.Finding;
import dev.skillgate.inspect.FrontmatterValue;
import dev.skillgate.inspect.PreservedField;
import dev.skillgate.inspect.SkillDocument;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Severity;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate validate DIR… [--profile strict|reference] [--json]}: the portable verdict of
 * each skill (SPEC §3, §13). Inert: reads each skill's {@code SKILL.md} through the bounded reader
 * and nothing else. Exit 0 when every skill is valid, 1 when one is not, 2 for a usage error
 * (including a path that does not exist, as the reference CLI does).
 */
final class ValidateCommand implements Command {
    @Override
    public String name() {
        return "validate";
    }

    @Override
    public String summary() {
        return "check skills against the Agent Skills standard (inert)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate validate DIR... [--profile strict|reference] [--json]

                Validates each skill directory (or its SKILL.md) against the Agent Skills standard and
                exits by the portable verdict: 0 all valid, 1 some invalid, 2 usage error (including a
                path that does not exist). Nothing in a skill is run.

                  --profile strict      the standard read literally (default)
                  --profile reference   mirror the reference validator skills-ref, messages included
                  --json                print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json"), Set.of("--profile"));
        if (parsed.positionals().isEmpty()) {
            throw new UsageException("needs at least one skill directory");
        }
        // No lambdas or streams on this path (decision 0860): `skillgate validate` is a fresh JVM,
        // and each invokedynamic call site is linked through java.lang.invoke on first use.
        String profileName = parsed.value("--profile").orElse("strict");
        Optional<ValidationProfile> found = ValidationProfile.find(profileName);
        if (found.isEmpty()) {
            throw new UsageException("unknown profile '" + Args.printable(profileName) + "' (strict or reference)");
        }
        ValidationProfile profile = found.get();
        List<Path> dirs = new ArrayList<>();
        for (String arg : parsed.positionals()) {
            dirs.add(skillDirectory(arg));
        }
        List<ValidationReport> reports = new ArrayList<>();
        for (Path dir : dirs) {
            reports.add(SkillValidator.validate(dir, profile));
        }
        boolean allValid = true;
        for (ValidationReport r : reports) {
            allValid &= r.portable();
        }
        if (parsed.has("--json")) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.validate/1");
            doc.put("profile", profile.cliName());
            doc.put("valid", allValid);
            doc.put("results", reports.stream().map(ValidateCommand::json).toList());
            JsonOut.print(out, doc);
        } else {
            for (ValidationReport r : reports) {
                text(r, profile, out, err);
            }
        }
        return allValid ? ExitCode.OK : ExitCode.INVALID;
    }

    /**
     * The skill directory named by {@code arg}: the path itself, or the parent of a {@code
     * SKILL.md}/{@code skill.md} file (compared case-insensitively, as the reference CLI does).
     */
    static Path skillDirectory(String arg) throws UsageException {
        Path path;
        try {
            path = Path.of(arg);
        } catch (InvalidPathException e) {
            throw new UsageException("not a usable path: " + Args.path(arg));
        }
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new UsageException(Args.missing("path", arg));
        } catch (IOException e) {
            throw new UsageException("path cannot be examined: " + Args.path(arg));
        }
        Path fileName = path.getFileName();
        if (!attrs.isDirectory()
                && fileName != null
                && fileName.toString().toLowerCase(Locale.ROOT).equals("skill.md")) {
            Path parent = path.getParent();
            return parent != null ? parent : path.toAbsolutePath().getParent();
        }
        return path;
    }

    private static void text(ValidationReport r, ValidationProfile profile, PrintStream out, PrintStream err) {
        boolean strict = profile == ValidationProfile.STRICT;
        if (r.portable()) {
            out.println("Valid skill: " + Args.safe(r.path().toString()));
        } else {
            err.println("Validation failed for " + Args.safe(r.path().toString()) + ":");
            for (Diagnostic d : r.portableErrors()) {
                err.println("  - " + (strict ? d.code().name() + ": " : "") + d.message());
            }
        }
        if (!strict) {
            return;
        }
        for (Finding f : r.findings()) {
            Diagnostic d = f.diagnostic();
            if (!f.blocksPortable()) {
                String level = d.severity() == Severity.INFO ? "note" : "warning";
                err.println("  " + level + ": " + d.code().name() + ": " + d.message());
            }
        }
        if (!r.portable()) {
            err.println("  loadable as prompt material: " + (r.loadable() ? "yes" : "no"));
        }
    }

    private static Map<String, Object> json(ValidationReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", r.path().toString());
        m.put("portable", r.portable());
        m.put("loadable", r.loadable());
        m.put("name", r.skillName().orElse(null));
        m.put("file", r.document().map(SkillDocument::fileName).orElse(null));
        List<Map<String, Object>> diagnostics = new ArrayList<>();
        for (Finding f : r.findings()) {
            Map<String, Object> d = JsonOut.diagnostic(f.diagnostic());
            d.put("blocksPortable", f.blocksPortable());
            d.put("blocksLoading", f.blocksLoading());
            diagnostics.add(d);
        }
        m.put("diagnostics", diagnostics);
        List<Map<String, Object>> preserved = new ArrayList<>();
        r.document().ifPresent(doc -> {
            for (PreservedField p : doc.preservedFields()) {
                Map<String, Object> field = new LinkedHashMap<>();
                field.put("key", p.key());
                field.put("host", p.host().orElse(null));
                field.put("enforced", false);
                preserved.add(field);
            }
        });
        m.put("preserved", preserved);
        m.put("properties", r.document().map(doc -> properties(r, doc)).orElse(null));
        return m;
    }

    /**
     * The known fields in the reference tool's {@code read-properties} shape: {@code name} and
     * {@code description} trimmed, then {@code license}, {@code compatibility}, {@code
     * allowed-tools} when present, {@code metadata} when non-empty.
     */
    static Map<String, Object> properties(ValidationReport r, SkillDocument doc) {
        Map<String, Object> p = new LinkedHashMap<>();
        r.skillName().ifPresent(n -> p.put("name", n));
        r.skillDescription().ifPresent(d -> p.put("description", d));
        doc.fields().get("license").ifPresent(v -> p.put("license", plain(v)));
        doc.fields().get("compatibility").ifPresent(v -> p.put("compatibility", plain(v)));
        doc.fields().get("allowed-tools").ifPresent(v -> p.put("allowed-tools", plain(v)));
        doc.metadata().ifPresent(v -> {
            if (v instanceof FrontmatterValue.Mapping map && !map.entries().isEmpty()) {
                p.put("metadata", plain(v));
            }
        });
        return p;
    }

    /** A frontmatter value as plain JSON data: strings, lists and objects. */
    static Object plain(FrontmatterValue value) {
        if (value instanceof FrontmatterValue.Scalar s) {
            return s.text();
        }
        if (value instanceof FrontmatterValue.Sequence seq) {
            return seq.items().stream().map(ValidateCommand::plain).toList();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        ((FrontmatterValue.Mapping) value).entries().forEach((k, v) -> out.put(k, plain(v)));
        return out;
    }
}
