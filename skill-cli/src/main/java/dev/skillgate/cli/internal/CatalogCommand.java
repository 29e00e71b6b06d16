package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.ShadowedSkill;
import dev.skillgate.inspect.SkillCatalog;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code skillgate catalog ROOT… [--prompt|--json]}: the loadable skills under the roots, first
 * root first, in a deterministic order (SPEC §3, §13). Inert: lists directories and reads skill
 * files through the bounded reader; runs nothing. Exit 0 when the roots were searched (skills that
 * are not loadable are reported, not fatal), 1 when a root is not a directory or is a link, 2 for a
 * usage error (including a root that does not exist).
 */
final class CatalogCommand implements Command {
    @Override
    public String name() {
        return "catalog";
    }

    @Override
    public String summary() {
        return "list loadable skills under roots, as text, a prompt block or JSON (inert)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate catalog ROOT... [--prompt|--json]

                Discovers skills under each ROOT (the first root wins on equal names; shadowed skills
                are reported) and lists the loadable ones by name. Nothing in a skill is run; links
                are reported, never followed.

                  --prompt   print the <available_skills> block for a model prompt (nothing when empty)
                  --json     print the documented JSON catalog (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--prompt", "--json"), Set.of());
        if (parsed.has("--prompt") && parsed.has("--json")) {
            throw new UsageException("--prompt and --json exclude each other");
        }
        if (parsed.positionals().isEmpty()) {
            throw new UsageException("needs at least one root directory");
        }
        if (parsed.positionals().size() > DiscoveryOptions.MAX_ROOTS) {
            throw new UsageException("at most " + DiscoveryOptions.MAX_ROOTS + " roots");
        }
        List<Path> roots = new ArrayList<>();
        boolean unusable = false;
        for (String arg : parsed.positionals()) {
            Path root;
            try {
                root = Path.of(arg);
            } catch (InvalidPathException e) {
                throw new UsageException("not a usable path: " + Args.printable(arg));
            }
            try {
                BasicFileAttributes a =
                        Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isSymbolicLink() || !a.isDirectory()) {
                    err.println(
                            "skillgate catalog: root is " + (a.isSymbolicLink() ? "a symbolic link" : "not a directory")
                                    + " (links are never followed): " + Args.printable(arg));
                    unusable = true;
                } else if (!listable(root)) {
                    err.println(
                            "skillgate catalog: root cannot be read by this user (READ_IO): " + Args.printable(arg));
                    unusable = true;
                }
            } catch (NoSuchFileException e) {
                throw new UsageException("root does not exist: " + Args.printable(arg));
            } catch (IOException e) {
                throw new UsageException("root cannot be examined: " + Args.printable(arg));
            }
            roots.add(root);
        }
        if (unusable) {
            return ExitCode.INVALID;
        }
        DiscoveryResult result = SkillDiscovery.discover(DiscoveryOptions.of(roots));
        SkillCatalog catalog = SkillCatalog.of(result);
        if (parsed.has("--json")) {
            JsonOut.print(out, json(result, catalog));
            return ExitCode.OK;
        }
        if (parsed.has("--prompt")) {
            String prompt = catalog.prompt();
            if (!prompt.isEmpty()) {
                out.println(prompt);
            }
        } else {
            for (SkillCatalog.Entry e : catalog.entries()) {
                out.println(Args.safe(e.name()) + "\t" + Args.safe(e.location().toString()));
            }
        }
        for (ShadowedSkill s : result.shadowed()) {
            err.println("shadowed: " + Args.safe(s.name()) + " at "
                    + Args.safe(s.location().toString()) + " (using "
                    + Args.safe(s.winner().toString()) + ")");
        }
        for (ValidationReport r : result.rejected()) {
            err.println("not loadable: " + Args.safe(r.path().toString()));
            for (Diagnostic d : r.loadErrors()) {
                err.println("  - " + d.code().name() + ": " + d.message());
            }
        }
        for (Diagnostic d : result.diagnostics()) {
            if (d.code() != dev.skillgate.model.ErrorCode.LAYOUT_SHADOWED) {
                err.println("warning: " + d.code().name() + ": " + d.message());
            }
        }
        return ExitCode.OK;
    }

    private static Map<String, Object> json(DiscoveryResult result, SkillCatalog catalog) {
        Map<Path, DiscoveredSkill> byLocation = new HashMap<>();
        result.skills().forEach(s -> byLocation.put(s.location(), s));
        List<Map<String, Object>> skills = new ArrayList<>();
        for (SkillCatalog.Entry e : catalog.entries()) {
            DiscoveredSkill s = byLocation.get(e.location());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("description", e.description());
            m.put("location", e.location().toString());
            m.put("kind", s.kind().name());
            m.put("root", s.rootIndex());
            m.put("portable", s.report().portable());
            m.put("diagnostics", JsonOut.diagnostics(s.report().diagnostics()));
            skills.add(m);
        }
        List<Map<String, Object>> shadowed = new ArrayList<>();
        for (ShadowedSkill s : result.shadowed()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("location", s.location().toString());
            m.put("root", s.rootIndex());
            m.put("winner", s.winner().toString());
            shadowed.add(m);
        }
        List<Map<String, Object>> rejected = new ArrayList<>();
        for (ValidationReport r : result.rejected()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", r.path().toString());
            m.put("diagnostics", JsonOut.diagnostics(r.loadErrors()));
            rejected.add(m);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", "skillgate.catalog/1");
        doc.put("skills", skills);
        doc.put("shadowed", shadowed);
        doc.put("rejected", rejected);
        doc.put("diagnostics", JsonOut.diagnostics(result.diagnostics()));
        return doc;
    }

    /** Whether this user may list {@code root}, a directory that is not a link. */
    private static boolean listable(Path root) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
