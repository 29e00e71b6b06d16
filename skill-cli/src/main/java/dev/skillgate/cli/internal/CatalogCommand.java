package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.ShadowedSkill;
import dev.skillgate.inspect.SkillCatalog;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.StandardRoots;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
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
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate catalog ROOT… [--prompt|--json]}: the loadable skills under the roots, first
 * root first, in a deterministic order (SPEC §3, §13). Inert: lists directories and reads skill
 * files through the bounded reader; runs nothing. Exit 0 when the roots were searched (skills that
 * are not loadable are reported, not fatal), 1 when a root is not a directory or is a link, 2 for a
 * usage error (including a root that does not exist).
 */
final class CatalogCommand implements Command {
    private final Map<String, String> environment;

    /** The command over this process's environment ({@code HOME} for {@code --user}). */
    CatalogCommand() {
        this(System.getenv());
    }

    /** The command over the given environment (tests). */
    CatalogCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

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
                usage: skillgate catalog [ROOT...] [--project DIR [--trust-project]] [--user]
                                         [--clients NAME,...] [--prompt|--json] [--include-user-only]
                                         [--max-entries N] [--max-depth N] [--partial] [--no-dot-dirs]

                Discovers skills under each ROOT (the first root wins on equal names; shadowed skills
                are reported) and lists the loadable ones by name. A ROOT that is itself a skill
                directory is that one skill. Nothing in a skill is run; links are reported, never
                followed; .git, .hg, .svn and node_modules are never searched (reported).

                  --project DIR        also the standard project roots: .<client>/skills and
                                       .agents/skills in DIR and its parents up to the repository root;
                                       listed as not searched unless --trust-project
                  --trust-project      you trust DIR (a clone may plant skills): search its roots
                  --user               also the standard user roots ~/.<client>/skills, ~/.agents/skills
                  --clients NAME,...   client directories searched before .agents (e.g. claude,codex)
                  --prompt             print the <available_skills> block for a model prompt (nothing
                                       when empty); skills with disable-model-invocation: true are left out
                  --include-user-only  put those skills into the --prompt block too
                  --json               print the documented JSON catalog (docs/cli.md)
                  --max-entries N      entries the walk of one root may look at (default 20000)
                  --max-depth N        directory levels below a root (default 4, at most 16)
                  --partial            accept a partial catalog when a root has more entries (else exit 1)
                  --no-dot-dirs        do not search directories whose names start with '.' (reported)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(
                args,
                Set.of(
                        "--prompt",
                        "--json",
                        "--include-user-only",
                        "--partial",
                        "--no-dot-dirs",
                        "--trust-project",
                        "--user"),
                Set.of("--max-entries", "--max-depth", "--project", "--clients"));
        boolean json = parsed.has("--json");
        if (parsed.has("--prompt") && parsed.has("--json")) {
            throw new UsageException("--prompt and --json exclude each other");
        }
        if (parsed.positionals().isEmpty() && parsed.value("--project").isEmpty() && !parsed.has("--user")) {
            throw new UsageException("needs at least one root directory, --project DIR or --user");
        }
        StandardRoots.Resolution standard = standardRoots(parsed, environment);
        if (parsed.positionals().size() > DiscoveryOptions.MAX_ROOTS) {
            throw new UsageException("at most " + DiscoveryOptions.MAX_ROOTS + " roots");
        }
        DiscoveryOptions.Builder options = DiscoveryOptions.builder()
                .acceptPartial(parsed.has("--partial"))
                .dotDirectories(!parsed.has("--no-dot-dirs"));
        try {
            if (parsed.value("--max-entries").isPresent()) {
                options.maxEntriesPerRoot(number(parsed.value("--max-entries").get(), "--max-entries"));
            }
            if (parsed.value("--max-depth").isPresent()) {
                options.maxDepth(number(parsed.value("--max-depth").get(), "--max-depth"));
            }
        } catch (InvalidValueException e) {
            throw new UsageException(e.getMessage());
        }
        List<Path> roots = new ArrayList<>();
        List<Diagnostic> rootProblems = new ArrayList<>();
        for (String arg : parsed.positionals()) {
            Path root;
            try {
                root = Path.of(arg);
            } catch (InvalidPathException e) {
                throw new UsageException("not a usable path: " + Args.path(arg));
            }
            try {
                BasicFileAttributes a =
                        Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isSymbolicLink()) {
                    rootProblems.add(Diagnostic.error(
                            ErrorCode.LAYOUT_LINK,
                            arg,
                            "root is a symbolic link (links are never followed): " + Args.path(arg)));
                } else if (!a.isDirectory()) {
                    rootProblems.add(
                            Diagnostic.error(ErrorCode.LAYOUT_DIR, arg, "root is not a directory: " + Args.path(arg)));
                } else if (!listable(root)) {
                    rootProblems.add(Diagnostic.error(
                            ErrorCode.READ_IO, arg, "root cannot be read by this user: " + Args.path(arg)));
                }
            } catch (NoSuchFileException e) {
                throw new UsageException(Args.missing("root", arg));
            } catch (IOException e) {
                throw new UsageException("root cannot be examined: " + Args.path(arg));
            }
            roots.add(root);
        }
        roots.addAll(standard.paths());
        if (roots.size() > DiscoveryOptions.MAX_ROOTS) {
            throw new UsageException("at most " + DiscoveryOptions.MAX_ROOTS + " roots");
        }
        for (StandardRoots.Root r : standard.untrusted()) {
            err.println("not searched: " + Args.path(r.path().toString())
                    + " (project roots need your decision that the project is trusted: --trust-project)");
        }
        if (!rootProblems.isEmpty()) {
            if (json) {
                JsonOut.print(out, json(new DiscoveryResult(List.of(), List.of(), List.of(), rootProblems), null));
            } else {
                for (Diagnostic d : rootProblems) {
                    err.println("skillgate catalog: " + d.code().name() + ": " + d.message());
                }
            }
            return ExitCode.INVALID;
        }
        DiscoveryResult result = SkillDiscovery.discover(options.roots(roots).build());
        SkillCatalog catalog = SkillCatalog.of(result);
        if (parsed.has("--include-user-only")) {
            catalog = catalog.includingModelInvocationDisabled();
        }
        ExitCode exit = result.incomplete() && !parsed.has("--partial") ? ExitCode.INVALID : ExitCode.OK;
        if (json) {
            Map<String, Object> doc = json(result, catalog);
            doc.put(
                    "untrustedRoots",
                    standard.untrusted().stream().map(r -> r.path().toString()).toList());
            JsonOut.print(out, doc);
            return exit;
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
        for (SkillCatalog.Entry e : catalog.entries()) {
            if (e.modelInvocationDisabled()) {
                err.println("user-only: " + Args.safe(e.name())
                        + " (disable-model-invocation: true; left out of --prompt"
                        + (parsed.has("--include-user-only") ? ", included by --include-user-only)" : ")"));
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
            if (d.code() != ErrorCode.LAYOUT_SHADOWED) {
                err.println(label(d) + ": " + d.code().name() + ": " + d.message());
            }
        }
        if (exit != ExitCode.OK) {
            err.println("skillgate catalog: no catalog: a root holds more entries than --max-entries allows;"
                    + " raise --max-entries (at most " + DiscoveryOptions.MAX_ENTRIES + ") or pass --partial");
        }
        return exit;
    }

    /**
     * The standard roots of {@code --project DIR [--trust-project]}, {@code --user} and {@code
     * --clients} (decision 0639); empty without them.
     */
    static StandardRoots.Resolution standardRoots(Args parsed, Map<String, String> environment) throws UsageException {
        if (parsed.has("--trust-project") && parsed.value("--project").isEmpty()) {
            throw new UsageException("--trust-project needs --project DIR");
        }
        StandardRoots.Builder b = StandardRoots.builder();
        if (parsed.value("--clients").isPresent()) {
            for (String client : parsed.value("--clients").get().split(",", -1)) {
                try {
                    b.client(client);
                } catch (InvalidValueException e) {
                    throw new UsageException("--clients: '" + Args.printable(client) + "' is not a client name"
                            + " (a-z, 0-9, single hyphens)");
                }
            }
        }
        if (parsed.value("--project").isPresent()) {
            Path project = CommandLineFiles.existingDirectory(
                    "--project", parsed.value("--project").get());
            b.project(
                    project,
                    parsed.has("--trust-project")
                            ? StandardRoots.ProjectTrust.TRUSTED
                            : StandardRoots.ProjectTrust.UNTRUSTED);
        }
        if (parsed.has("--user")) {
            Optional<Path> home = StandardRoots.homeFromEnvironment(environment);
            if (home.isEmpty()) {
                throw new UsageException("--user needs HOME to be an absolute path");
            }
            b.home(home.get());
        }
        return b.build().resolve();
    }

    private static String label(Diagnostic d) {
        return switch (d.severity()) {
            case ERROR -> "error";
            case WARNING -> "warning";
            case INFO -> "note";
        };
    }

    private static int number(String value, String option) throws UsageException {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, was " + Args.printable(value));
        }
    }

    private static Map<String, Object> json(DiscoveryResult result, SkillCatalog catalog) {
        Map<Path, DiscoveredSkill> byLocation = new HashMap<>();
        result.skills().forEach(s -> byLocation.put(s.location(), s));
        List<Map<String, Object>> skills = new ArrayList<>();
        for (SkillCatalog.Entry e : catalog == null ? List.<SkillCatalog.Entry>of() : catalog.entries()) {
            DiscoveredSkill s = byLocation.get(e.location());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.name());
            m.put("description", e.description());
            m.put("location", e.location().toString());
            m.put("kind", s.kind().name());
            m.put("root", s.rootIndex());
            m.put("portable", s.report().portable());
            m.put("disableModelInvocation", e.modelInvocationDisabled());
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
        doc.put("complete", !result.incomplete() && catalog != null);
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
