package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.FileIdentity;
import dev.skillgate.inspect.ShadowedSkill;
import dev.skillgate.inspect.SkillDocument;
import dev.skillgate.inspect.SkillKind;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.Severity;
import dev.skillgate.model.shared.Text;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The discovery walk: depth-first over each root, children in code point order of their names, at
 * most {@code maxDepth} levels and {@code maxEntriesPerRoot} entries per root. A directory holding
 * {@code SKILL.md} (or {@code skill.md}) is a skill candidate and is not descended into; a root that
 * holds one is that one skill. Links are reported and never followed; version-control metadata
 * ({@code .git}, {@code .hg}, {@code .svn}), {@code node_modules} and (by option) other
 * dot-directories are skipped and reported; a root given twice is searched once; FIFOs, sockets and
 * devices are never opened. At most {@code maxDepth + 1} directories are open at once.
 */
public final class Walker {
    private final DiscoveryOptions options;
    private final List<DiscoveredSkill> skills = new ArrayList<>();
    private final List<ShadowedSkill> shadowed = new ArrayList<>();
    private final List<ValidationReport> rejected = new ArrayList<>();
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final Map<String, DiscoveredSkill> byName = new HashMap<>();
    private final Map<Path, DiscoveredSkill> byLocation = new HashMap<>();
    private final List<FileIdentity> rootIdentities = new ArrayList<>();
    private boolean overflowed;
    private static final java.util.Set<String> NEVER_SEARCHED = java.util.Set.of(".git", ".hg", ".svn", "node_modules");
    private static final char REPLACEMENT = '\uFFFD';

    private Walker(DiscoveryOptions options) {
        this.options = options;
    }

    public static DiscoveryResult discover(DiscoveryOptions options) {
        Walker walker = new Walker(options);
        List<Path> roots = options.roots();
        for (int i = 0; i < roots.size(); i++) {
            walker.walkRoot(i, roots.get(i).toAbsolutePath().normalize());
        }
        if (walker.overflowed && !options.acceptPartial()) {
            // Fail closed: a catalog that silently misses skills is not offered (decision 0636).
            return new DiscoveryResult(List.of(), List.of(), List.of(), walker.diagnostics, true);
        }
        return new DiscoveryResult(
                walker.skills, walker.shadowed, walker.rejected, walker.diagnostics, walker.overflowed);
    }

    private record Frame(Dir dir, List<String> segments, List<String> names, int[] next) {}

    private void walkRoot(int index, Path root) {
        String shown = Text.sanitize(root.toString(), 200);
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(root, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            diagnostics.add(
                    Diagnostic.warning(ErrorCode.LAYOUT_PATH, root.toString(), "Root does not exist: " + shown));
            return;
        } catch (IOException e) {
            diagnostics.add(ReaderCore.ioProblem(root.toString(), e));
            return;
        }
        if (attrs.isSymbolicLink()) {
            diagnostics.add(Diagnostic.warning(
                    ErrorCode.LAYOUT_LINK, root.toString(), "Root is a symbolic link and was not followed: " + shown));
            return;
        }
        if (!attrs.isDirectory()) {
            diagnostics.add(
                    Diagnostic.warning(ErrorCode.LAYOUT_DIR, root.toString(), "Root is not a directory: " + shown));
            return;
        }
        FileIdentity rootIdentity = ReaderCore.identity(attrs);
        for (int earlier = 0; earlier < rootIdentities.size(); earlier++) {
            if (rootIdentities.get(earlier).sameFileAs(rootIdentity)) {
                diagnostics.add(new Diagnostic(
                        ErrorCode.LAYOUT_SKIPPED,
                        Severity.INFO,
                        root.toString(),
                        "Root " + index + " is root " + earlier + " given again; it was searched once"));
                return;
            }
        }
        rootIdentities.add(rootIdentity);
        int[] budget = {options.maxEntriesPerRoot()};
        boolean depthLimited = false;
        Deque<Frame> stack = new ArrayDeque<>();
        try {
            Dir rootDir = Dir.open(root);
            if (!ReaderCore.identity(rootDir.self()).sameFileAs(ReaderCore.identity(attrs))) {
                rootDir.close();
                diagnostics.add(Diagnostic.warning(
                        ErrorCode.SOURCE_CHANGED, root.toString(), "Root changed while it was opened: " + shown));
                return;
            }
            if (exists(rootDir, "SKILL.md") || exists(rootDir, "skill.md")) {
                // The root is itself a skill directory (what `skills-ref to-prompt` takes): that one skill.
                rootDir.close();
                Path name = root.getFileName();
                candidate(index, root, List.of(), name == null ? "" : name.toString(), root);
                return;
            }
            Optional<List<String>> rootNames = list(rootDir, budget, root, List.of());
            if (rootNames.isEmpty()) {
                rootDir.close();
                return;
            }
            stack.push(new Frame(rootDir, List.of(), rootNames.get(), new int[] {0}));
            while (!stack.isEmpty()) {
                Frame frame = stack.peek();
                if (frame.next()[0] >= frame.names().size()) {
                    stack.pop().dir().close();
                    continue;
                }
                String name = frame.names().get(frame.next()[0]++);
                List<String> segments = append(frame.segments(), name);
                Path shownPath;
                try {
                    shownPath = resolve(root, segments);
                } catch (InvalidPathException e) {
                    unusableName(root, segments);
                    continue;
                }
                BasicFileAttributes entry;
                try {
                    entry = frame.dir().stat(name);
                } catch (NoSuchFileException e) {
                    // A listed name that cannot be found again did not decode to what is on disk
                    // (U+FFFD stands for undecodable bytes); anything else vanished since the listing.
                    if (name.indexOf(REPLACEMENT) >= 0) {
                        unusableName(root, segments);
                    }
                    continue;
                } catch (IOException e) {
                    diagnostics.add(ReaderCore.ioProblem(shownPath.toString(), e));
                    continue;
                }
                if (entry.isSymbolicLink()) {
                    diagnostics.add(Diagnostic.warning(
                            ErrorCode.LAYOUT_LINK,
                            shownPath.toString(),
                            "'" + Text.excerpt(String.join("/", segments))
                                    + "' is a symbolic link; links are never followed"));
                    continue;
                }
                if (entry.isRegularFile()) {
                    if (segments.size() == 1
                            && options.legacyFlatFiles()
                            && isLegacyName(name)
                            && !name.startsWith(".")) {
                        legacy(index, root, name, shownPath);
                    }
                    continue;
                }
                if (!entry.isDirectory()) {
                    continue; // FIFOs, sockets and devices are never opened
                }
                if (NEVER_SEARCHED.contains(name) || (name.startsWith(".") && !options.dotDirectories())) {
                    diagnostics.add(new Diagnostic(
                            ErrorCode.LAYOUT_SKIPPED,
                            Severity.INFO,
                            shownPath.toString(),
                            "'" + Text.excerpt(String.join("/", segments)) + "' was not searched ("
                                    + (NEVER_SEARCHED.contains(name)
                                            ? "version-control metadata and node_modules never are"
                                            : "dot-directories are excluded by option")
                                    + ")"));
                    continue;
                }
                Dir child;
                try {
                    child = frame.dir().openDir(name);
                    if (!ReaderCore.identity(child.self()).sameFileAs(ReaderCore.identity(entry))) {
                        child.close();
                        diagnostics.add(Diagnostic.warning(
                                ErrorCode.SOURCE_CHANGED,
                                shownPath.toString(),
                                "Directory changed while it was opened"));
                        continue;
                    }
                } catch (AccessDeniedException e) {
                    // Not a link: the directory is there but this user may not read it.
                    diagnostics.add(ReaderCore.ioProblem(shownPath.toString(), e));
                    continue;
                } catch (FileSystemException e) {
                    diagnostics.add(Diagnostic.warning(
                            ErrorCode.LAYOUT_LINK,
                            shownPath.toString(),
                            "'" + Text.excerpt(String.join("/", segments)) + "' could not be opened without following"
                                    + " a link"));
                    continue;
                }
                boolean candidate = exists(child, "SKILL.md") || exists(child, "skill.md");
                if (candidate) {
                    child.close();
                    candidate(index, root, segments, name, shownPath);
                    continue;
                }
                if (segments.size() >= options.maxDepth()) {
                    child.close();
                    depthLimited = true;
                    continue;
                }
                Optional<List<String>> names = list(child, budget, root, segments);
                if (names.isEmpty()) {
                    child.close();
                    break; // entry budget exhausted: stop this root
                }
                stack.push(new Frame(child, segments, names.get(), new int[] {0}));
            }
        } catch (IOException e) {
            diagnostics.add(ReaderCore.ioProblem(root.toString(), e));
        } finally {
            while (!stack.isEmpty()) {
                try {
                    stack.pop().dir().close();
                } catch (IOException e) {
                    // closing a directory we only read cannot lose data
                }
            }
        }
        if (depthLimited) {
            diagnostics.add(Diagnostic.warning(
                    ErrorCode.LAYOUT_WALK_LIMIT,
                    root.toString(),
                    "Directories deeper than maxDepth " + options.maxDepth() + " under root " + index
                            + " were not searched"));
        }
    }

    /** The names in {@code dir}, sorted; empty when the root's entry budget would be exceeded. */
    private Optional<List<String>> list(Dir dir, int[] budget, Path root, List<String> segments) throws IOException {
        List<String> names = dir.list(budget[0]);
        if (names.size() > budget[0]) {
            overflowed = true;
            String message = "Discovery stopped: the root holds more than maxEntriesPerRoot "
                    + options.maxEntriesPerRoot() + " entries within maxDepth"
                    + (options.acceptPartial()
                            ? "; the catalog is partial (accepted)"
                            : "; no partial catalog is offered (raise the bound, or accept a partial catalog)");
            diagnostics.add(new Diagnostic(
                    ErrorCode.LAYOUT_WALK_LIMIT,
                    options.acceptPartial() ? Severity.WARNING : Severity.ERROR,
                    resolve(root, segments).toString(),
                    message));
            budget[0] = 0;
            return Optional.empty();
        }
        budget[0] -= names.size();
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(PyText.CODE_POINT_ORDER);
        return Optional.of(sorted);
    }

    private void candidate(int index, Path root, List<String> segments, String name, Path shownPath) {
        ReaderCore reader = ReaderCore.open(root, segments, Limits.FILE_BYTES);
        ValidationReport report = Inspector.inspect(reader, shownPath, name, options.profile());
        if (!report.loadable()) {
            rejected.add(report);
            return;
        }
        SkillDocument document = report.document().orElseThrow();
        SkillKind kind = document.fileName().equals("SKILL.md") ? SkillKind.STANDARD : SkillKind.LOWERCASE_FILE;
        accept(new DiscoveredSkill(
                report.skillName().orElseThrow(),
                report.skillDescription().orElseThrow(),
                shownPath.resolve(document.fileName()),
                kind,
                index,
                root,
                String.join("/", segments),
                report));
    }

    private void legacy(int index, Path root, String fileName, Path shownPath) {
        ReaderCore reader = ReaderCore.open(root, List.of(), Limits.FILE_BYTES);
        Optional<ValidationReport> maybe = Inspector.inspectLegacy(reader, fileName, shownPath, options.profile());
        if (maybe.isEmpty()) {
            return;
        }
        ValidationReport report = maybe.get();
        if (!report.loadable()) {
            rejected.add(report);
            return;
        }
        accept(new DiscoveredSkill(
                report.skillName().orElseThrow(),
                report.skillDescription().orElseThrow(),
                shownPath,
                SkillKind.LEGACY_FLAT,
                index,
                root,
                fileName,
                report));
    }

    private void accept(DiscoveredSkill skill) {
        DiscoveredSkill same = byLocation.get(skill.location());
        if (same != null) {
            // Overlapping roots reach one skill twice: it is not shadowed by itself.
            diagnostics.add(new Diagnostic(
                    ErrorCode.LAYOUT_SKIPPED,
                    Severity.INFO,
                    skill.location().toString(),
                    "Skill '" + Text.excerpt(skill.name()) + "' was already found through root " + same.rootIndex()));
            return;
        }
        byLocation.put(skill.location(), skill);
        DiscoveredSkill winner = byName.get(skill.name());
        if (winner != null) {
            shadowed.add(new ShadowedSkill(skill.name(), skill.location(), skill.rootIndex(), winner.location()));
            diagnostics.add(Diagnostic.warning(
                    ErrorCode.LAYOUT_SHADOWED,
                    skill.location().toString(),
                    "Skill '" + Text.excerpt(skill.name()) + "' is shadowed by the skill of the same name in root "
                            + winner.rootIndex()));
            return;
        }
        byName.put(skill.name(), skill);
        skills.add(skill);
    }

    /**
     * Reports an entry whose name the JVM cannot map back to the bytes on disk (not valid UTF-8, or
     * not representable in a non-UTF-8 locale): it is skipped, never guessed at, and never silently.
     */
    private void unusableName(Path root, List<String> segments) {
        String shown = Text.sanitize(root + "/" + String.join("/", segments), 200);
        diagnostics.add(Diagnostic.warning(
                ErrorCode.LAYOUT_NAME_ENCODING,
                shown,
                "'" + Text.excerpt(String.join("/", segments))
                        + "' has a name that this JVM's file-name encoding cannot"
                        + " map back to the bytes on disk (not UTF-8, or a non-UTF-8 locale); it was skipped"));
    }

    private static boolean isLegacyName(String name) {
        return name.length() > 3 && name.endsWith(".md") && !name.equals("SKILL.md") && !name.equals("skill.md");
    }

    private static boolean exists(Dir dir, String name) {
        try {
            dir.stat(name);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static List<String> append(List<String> segments, String name) {
        List<String> out = new ArrayList<>(segments.size() + 1);
        out.addAll(segments);
        out.add(name);
        return List.copyOf(out);
    }

    private static Path resolve(Path root, List<String> segments) {
        Path out = root;
        for (String s : segments) {
            out = out.resolve(s);
        }
        return out;
    }
}
