package dev.skillgate.project;

import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.project.internal.ScriptParser;
import dev.skillgate.project.internal.StrictJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * Inspects a Node project without running anything (seed ADR-007): walks the directory without
 * following links, reads {@code package.json}, {@code package-lock.json} (v2/v3), the tsconfig files and
 * every source and installed dependency file through the bounded, link-refusing
 * {@link BoundedReader}, checks the dependency tree against the lockfile and resolves each
 * {@code scripts} entry into exact direct argv or a refusal with its own {@code PROJECT_*} code.
 *
 * <p>Guarantees: nothing is executed, installed or downloaded; no link is followed (a source link, a
 * package root that is a link, a {@code .bin} entry that does not resolve to a captured dependency
 * file are refused); the bounds of {@link ProjectLimits} hold. Not guaranteed: that the files stay as
 * they were read (a run re-inspects and compares {@link ProjectSnapshot.InputDigests#combined()}), nor
 * anything about what the project's code does when it runs.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectInspector {

    /** The default declared output directory. */
    public static final PortablePath DEFAULT_OUTPUT = PortablePath.of("dist");

    private static final PortablePath PACKAGE_JSON = PortablePath.of("package.json");
    private static final PortablePath LOCKFILE = PortablePath.of("package-lock.json");

    private ProjectInspector() {}

    /** Inspects {@code projectDir} with the default output directory {@code dist}. */
    public static ProjectInspection inspect(Path projectDir) {
        return inspect(projectDir, DEFAULT_OUTPUT);
    }

    /** Inspects {@code projectDir}; {@code outputDirectory} is the job-local directory a build writes to. */
    public static ProjectInspection inspect(Path projectDir, PortablePath outputDirectory) {
        Objects.requireNonNull(projectDir, "projectDir");
        Objects.requireNonNull(outputDirectory, "outputDirectory");
        Path root = projectDir.toAbsolutePath().normalize();
        List<Diagnostic> problems = new ArrayList<>();
        if (outputDirectory.segments().get(0).equals("node_modules")
                || outputDirectory.segments().get(0).startsWith(".")
                || outputDirectory.value().equals("package.json")) {
            problems.add(Diagnostic.error(
                    ErrorCode.PROJECT_OUTPUT_INVALID,
                    outputDirectory.value(),
                    "the output directory must be a plain source directory"));
        }
        Walk walk = new Walk(root, outputDirectory);
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            problems.add(Diagnostic.error(
                    Files.exists(root, LinkOption.NOFOLLOW_LINKS) ? ErrorCode.LAYOUT_DIR : ErrorCode.LAYOUT_PATH,
                    "",
                    "the project directory is missing, a link or not a directory"));
            return new ProjectInspection(root, outputDirectory, List.of(), problems, Optional.empty());
        }
        walk.run();
        problems.addAll(walk.problems);

        BoundedReader reader = BoundedReader.forRoot(root, ProjectLimits.SNAPSHOT_BYTES);
        Map<PortablePath, byte[]> sources = new TreeMap<>();
        Map<PortablePath, byte[]> dependencies = new TreeMap<>();
        if (problems.isEmpty()) {
            read(reader, walk.sources, ProjectLimits.SOURCE_FILE_BYTES, sources, problems);
            read(reader, walk.dependencies, ProjectLimits.DEPENDENCY_FILE_BYTES, dependencies, problems);
        }

        // package.json: read even when the tree has problems, so that the scripts are still reported.
        byte[] manifest = sources.get(PACKAGE_JSON);
        if (manifest == null) {
            ReadOutcome<FileContent> m = reader.readBytes(PACKAGE_JSON, ProjectLimits.MANIFEST_BYTES);
            if (m.isSuccess()) {
                manifest = m.value().orElseThrow().bytes();
            }
        }
        if (manifest == null) {
            problems.add(
                    0,
                    Diagnostic.error(
                            ErrorCode.PROJECT_MANIFEST_MISSING,
                            "package.json",
                            "the project has no readable package.json"));
            return new ProjectInspection(root, outputDirectory, List.of(), problems, Optional.empty());
        }
        Optional<JsonNode> pkg = StrictJson.object(manifest);
        Map<String, String> scripts = new java.util.LinkedHashMap<>();
        if (pkg.isEmpty() || !scriptsOf(pkg.get(), scripts)) {
            problems.add(
                    0,
                    Diagnostic.error(
                            ErrorCode.PROJECT_MANIFEST_INVALID,
                            "package.json",
                            "package.json is not a strict JSON object with a scripts object of strings"));
            return new ProjectInspection(root, outputDirectory, List.of(), problems, Optional.empty());
        }
        if (pkg.get().has("workspaces")) {
            problems.add(Diagnostic.error(
                    ErrorCode.PROJECT_FOREIGN_PACKAGE_ROOT,
                    "package.json",
                    "workspaces are not supported: one package root only"));
        }

        // The lockfile and the installed tree.
        Optional<Sha256Digest> lockDigest = Optional.empty();
        if (problems.isEmpty()) {
            byte[] lock = sources.get(LOCKFILE);
            if (lock != null) {
                lockDigest = Optional.of(Sha256Digest.hash(lock));
            }
            checkLockfile(lock, walk.packageRoots, dependencies, problems);
        }

        // tsconfig files among the sources.
        TreeMap<PortablePath, Sha256Digest> configs = new TreeMap<>();
        for (Map.Entry<PortablePath, byte[]> e : sources.entrySet()) {
            String name = e.getKey().fileName();
            if (name.startsWith("tsconfig") && name.endsWith(".json")) {
                configs.put(e.getKey(), Sha256Digest.hash(e.getValue()));
            }
        }

        Set<String> names = scripts.keySet();
        Set<PortablePath> sourceSet = problems.isEmpty() ? sources.keySet() : walk.sourceSet();
        ScriptParser.Context context = new ScriptParser.Context() {
            @Override
            public boolean isSourceFile(PortablePath path) {
                return sourceSet.contains(path) && !path.segments().get(0).equals("node_modules");
            }

            @Override
            public PortablePath outputDirectory() {
                return outputDirectory;
            }

            @Override
            public Optional<Diagnostic> checkTsconfig(PortablePath path) {
                byte[] bytes = sources.get(path);
                if (bytes == null) {
                    ReadOutcome<FileContent> r = reader.readBytes(path, ProjectLimits.MANIFEST_BYTES);
                    bytes = r.isSuccess() ? r.value().orElseThrow().bytes() : null;
                }
                return tsconfigProblem(path, bytes, outputDirectory);
            }

            @Override
            public boolean hasTypescript() {
                return walk.dependencySet().contains(ProjectStep.TSC_ENTRYPOINT)
                        && walk.dependencySet().contains(PortablePath.of("node_modules/typescript/package.json"));
            }
        };
        List<ScriptVerdict> verdicts = new ArrayList<>();
        for (Map.Entry<String, String> e : scripts.entrySet()) {
            verdicts.add(ScriptParser.parse(e.getKey(), e.getValue(), names, context));
        }
        if (!problems.isEmpty()) {
            return new ProjectInspection(root, outputDirectory, verdicts, problems, Optional.empty());
        }
        Revision sourceRevision = Revision.compute(sources);
        Revision dependencyRevision = Revision.compute(dependencies);
        Sha256Digest links = linksDigest(walk.binLinks);
        Sha256Digest packageDigest = Sha256Digest.hash(manifest);
        Sha256Digest combined = combined(packageDigest, lockDigest, configs, sourceRevision, dependencyRevision, links);
        ProjectSnapshot snapshot = new ProjectSnapshot(
                sources,
                dependencies,
                walk.binLinks,
                new ProjectSnapshot.InputDigests(
                        packageDigest, lockDigest, configs, sourceRevision, dependencyRevision, links, combined));
        return new ProjectInspection(root, outputDirectory, verdicts, List.of(), Optional.of(snapshot));
    }

    private static boolean scriptsOf(JsonNode pkg, Map<String, String> out) {
        JsonNode scripts = pkg.get("scripts");
        if (scripts == null) {
            return true;
        }
        if (!scripts.isObject()) {
            return false;
        }
        for (Map.Entry<String, JsonNode> e : scripts.properties()) {
            if (!e.getValue().isString()) {
                return false;
            }
            out.put(e.getKey(), e.getValue().stringValue());
        }
        return true;
    }

    private static void read(
            BoundedReader reader,
            List<PortablePath> paths,
            int maxBytes,
            Map<PortablePath, byte[]> out,
            List<Diagnostic> problems) {
        for (PortablePath p : paths) {
            ReadOutcome<FileContent> r = reader.readBytes(p, maxBytes);
            if (r.isSuccess()) {
                out.put(p, r.value().orElseThrow().bytes());
            } else {
                Diagnostic d = r.diagnostic().orElseThrow();
                problems.add(
                        d.code() == ErrorCode.READ_TOTAL_LIMIT
                                ? Diagnostic.error(
                                        ErrorCode.PROJECT_SNAPSHOT_LIMIT, p.value(), "the snapshot exceeds 64 MiB")
                                : d);
                return;
            }
        }
    }

    static Optional<Diagnostic> tsconfigProblem(PortablePath path, byte[] bytes, PortablePath outputDirectory) {
        Optional<JsonNode> json = bytes == null ? Optional.empty() : StrictJson.object(bytes);
        if (json.isEmpty()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.PROJECT_TSCONFIG_INVALID,
                    path.value(),
                    "the tsconfig is not one strict JSON object (no comments, no trailing commas)"));
        }
        JsonNode config = json.get();
        if (config.has("extends") || config.has("references")) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.PROJECT_TSCONFIG_INVALID,
                    path.value(),
                    "the tsconfig extends or references another file that was not inspected"));
        }
        JsonNode options = config.get("compilerOptions");
        JsonNode outDir = options == null ? null : options.get("outDir");
        if (options != null && options.has("watch")) {
            return Optional.of(
                    Diagnostic.error(ErrorCode.PROJECT_SCRIPT_WATCH, path.value(), "the tsconfig asks for watch mode"));
        }
        String dir = outDir != null && outDir.isString() ? outDir.stringValue() : "";
        if (dir.startsWith("./")) {
            dir = dir.substring(2);
        }
        if (dir.endsWith("/")) {
            dir = dir.substring(0, dir.length() - 1);
        }
        Path parent = path.resolveUnder(Path.of("/p")).getParent();
        Path resolved = parent.resolve(dir).normalize();
        if (dir.isEmpty() || !resolved.equals(outputDirectory.resolveUnder(Path.of("/p")))) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.PROJECT_TSCONFIG_INVALID,
                    path.value(),
                    "compilerOptions.outDir must be the declared output directory '" + outputDirectory.value() + "'"));
        }
        return Optional.empty();
    }

    private static void checkLockfile(
            byte[] lock,
            Set<PortablePath> packageRoots,
            Map<PortablePath, byte[]> dependencies,
            List<Diagnostic> problems) {
        if (lock == null) {
            if (!packageRoots.isEmpty()) {
                problems.add(Diagnostic.error(
                        ErrorCode.PROJECT_LOCKFILE_MISMATCH,
                        "package-lock.json",
                        "node_modules is installed but there is no package-lock.json"));
            }
            return;
        }
        Optional<JsonNode> json = StrictJson.object(lock);
        JsonNode version = json.map(j -> j.get("lockfileVersion")).orElse(null);
        JsonNode packages = json.map(j -> j.get("packages")).orElse(null);
        if (version == null
                || !version.isIntegralNumber()
                || (version.intValue() != 2 && version.intValue() != 3)
                || packages == null
                || !packages.isObject()) {
            problems.add(Diagnostic.error(
                    ErrorCode.PROJECT_LOCKFILE_INVALID,
                    "package-lock.json",
                    "the lockfile is not a strict JSON lockfile of version 2 or 3"));
            return;
        }
        for (PortablePath root : packageRoots) {
            JsonNode entry = packages.get(root.value());
            byte[] manifest = dependencies.get(PortablePath.of(root.value() + "/package.json"));
            Optional<JsonNode> installed = manifest == null ? Optional.empty() : StrictJson.object(manifest);
            JsonNode installedVersion = installed.map(j -> j.get("version")).orElse(null);
            if (entry == null
                    || !entry.isObject()
                    || entry.has("link")
                    || installedVersion == null
                    || !installedVersion.isString()
                    || entry.get("version") == null
                    || !installedVersion
                            .stringValue()
                            .equals(entry.get("version").asString())) {
                problems.add(Diagnostic.error(
                        ErrorCode.PROJECT_LOCKFILE_MISMATCH,
                        root.value(),
                        "an installed package is not the one the lockfile names"));
                return;
            }
        }
        for (Map.Entry<String, JsonNode> e : packages.properties()) {
            String key = e.getKey();
            if (key.isEmpty()) {
                continue;
            }
            JsonNode entry = e.getValue();
            if (entry.isObject() && entry.has("link")) {
                problems.add(Diagnostic.error(
                        ErrorCode.PROJECT_FOREIGN_PACKAGE_ROOT,
                        excerpt(key),
                        "the lockfile links a package from outside the tree"));
                return;
            }
            boolean optional = entry.isObject() && entry.has("optional");
            if (!optional && (!PortablePath.isValid(key) || !packageRoots.contains(PortablePath.of(key)))) {
                problems.add(Diagnostic.error(
                        ErrorCode.PROJECT_LOCKFILE_MISMATCH,
                        excerpt(key),
                        "a package the lockfile names is not installed"));
                return;
            }
        }
    }

    private static Sha256Digest linksDigest(Map<PortablePath, PortablePath> links) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update("skillgate-project-bin-links-v1\0".getBytes(StandardCharsets.US_ASCII));
        for (Map.Entry<PortablePath, PortablePath> e : new TreeMap<>(links).entrySet()) {
            frame(md, e.getKey().value());
            frame(md, e.getValue().value());
        }
        return Sha256Digest.of(md.digest());
    }

    private static Sha256Digest combined(
            Sha256Digest pkg,
            Optional<Sha256Digest> lock,
            TreeMap<PortablePath, Sha256Digest> configs,
            Revision sources,
            Revision dependencies,
            Sha256Digest links) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update("skillgate-project-inputs-v1\0".getBytes(StandardCharsets.US_ASCII));
        frame(md, pkg.toString());
        frame(md, lock.map(Sha256Digest::toString).orElse("none"));
        for (Map.Entry<PortablePath, Sha256Digest> e : configs.entrySet()) {
            frame(md, e.getKey().value());
            frame(md, e.getValue().toString());
        }
        frame(md, sources.toString());
        frame(md, dependencies.toString());
        frame(md, links.toString());
        return Sha256Digest.of(md.digest());
    }

    static void frame(MessageDigest md, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        md.update(
                new byte[] {(byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length
                });
        md.update(b);
    }

    private static String excerpt(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 120 ? printable.substring(0, 120) : printable;
    }

    /** One walk of the project tree, links never followed. */
    private static final class Walk {
        final Path root;
        final PortablePath output;
        final List<PortablePath> sources = new ArrayList<>();
        final List<PortablePath> dependencies = new ArrayList<>();
        final Set<PortablePath> packageRoots = new LinkedHashSet<>();
        final Map<PortablePath, PortablePath> binLinks = new TreeMap<>();
        final List<Path> pendingLinks = new ArrayList<>();
        final List<Diagnostic> problems = new ArrayList<>();
        long sourceBytes;
        long dependencyBytes;

        Walk(Path root, PortablePath output) {
            this.root = root;
            this.output = output;
        }

        Set<PortablePath> sourceSet() {
            return Set.copyOf(sources);
        }

        Set<PortablePath> dependencySet() {
            return Set.copyOf(dependencies);
        }

        void run() {
            try {
                Files.walkFileTree(
                        root,
                        EnumSet.noneOf(java.nio.file.FileVisitOption.class),
                        ProjectLimits.MAX_DEPTH,
                        new SimpleFileVisitor<>() {
                            @Override
                            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                                if (dir.equals(root)) {
                                    return FileVisitResult.CONTINUE;
                                }
                                Optional<PortablePath> rel = rel(dir);
                                if (rel.isEmpty()) {
                                    return FileVisitResult.TERMINATE;
                                }
                                List<String> segs = rel.get().segments();
                                if (segs.size() == 1 && segs.get(0).equals(".git")) {
                                    return FileVisitResult.SKIP_SUBTREE;
                                }
                                if (rel.get().equals(output)) {
                                    return FileVisitResult.SKIP_SUBTREE;
                                }
                                int nm = segs.lastIndexOf("node_modules");
                                if (segs.indexOf("node_modules") > 0) {
                                    return fail(
                                            ErrorCode.PROJECT_FOREIGN_PACKAGE_ROOT,
                                            rel.get(),
                                            "a node_modules outside the project's own: workspaces are not supported");
                                }
                                if (nm >= 0 && isPackageRoot(segs, nm)) {
                                    packageRoots.add(rel.get());
                                }
                                return FileVisitResult.CONTINUE;
                            }

                            @Override
                            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                                Optional<PortablePath> rel = rel(file);
                                if (rel.isEmpty()) {
                                    return FileVisitResult.TERMINATE;
                                }
                                List<String> segs = rel.get().segments();
                                boolean dependency = segs.get(0).equals("node_modules");
                                if (attrs.isSymbolicLink()) {
                                    int nm = segs.lastIndexOf("node_modules");
                                    if (dependency
                                            && segs.size() >= 2
                                            && segs.get(segs.size() - 2).equals(".bin")) {
                                        pendingLinks.add(file);
                                        return FileVisitResult.CONTINUE;
                                    }
                                    if (dependency && isPackageRoot(segs, nm)) {
                                        return fail(
                                                ErrorCode.PROJECT_FOREIGN_PACKAGE_ROOT,
                                                rel.get(),
                                                "a package root is a link");
                                    }
                                    return fail(
                                            ErrorCode.PROJECT_LINK,
                                            rel.get(),
                                            "a symbolic link; links are never followed");
                                }
                                if (!attrs.isRegularFile()) {
                                    return fail(ErrorCode.PROJECT_SPECIAL_FILE, rel.get(), "not a regular file");
                                }
                                if (dependency) {
                                    if (segs.size() >= 2
                                            && segs.get(segs.size() - 2).equals(".bin")) {
                                        return fail(
                                                ErrorCode.PROJECT_BIN_LINK_ESCAPES,
                                                rel.get(),
                                                "a .bin entry that is not a link (an unknown executable alias)");
                                    }
                                    if (attrs.size() > ProjectLimits.DEPENDENCY_FILE_BYTES
                                            || dependencies.size() >= ProjectLimits.DEPENDENCY_FILES) {
                                        return fail(
                                                ErrorCode.PROJECT_DEPENDENCY_LIMIT,
                                                rel.get(),
                                                "more than 512 dependency files, or one over 16 MiB");
                                    }
                                    dependencies.add(rel.get());
                                    dependencyBytes += attrs.size();
                                } else {
                                    if (attrs.size() > ProjectLimits.SOURCE_FILE_BYTES
                                            || sources.size() >= ProjectLimits.SOURCE_FILES) {
                                        return fail(
                                                ErrorCode.PROJECT_SOURCE_LIMIT,
                                                rel.get(),
                                                "more than 2,000 source files, or one over 2 MiB");
                                    }
                                    sources.add(rel.get());
                                    sourceBytes += attrs.size();
                                }
                                if (sourceBytes + dependencyBytes > ProjectLimits.SNAPSHOT_BYTES) {
                                    return fail(
                                            ErrorCode.PROJECT_SNAPSHOT_LIMIT, rel.get(), "the snapshot exceeds 64 MiB");
                                }
                                return FileVisitResult.CONTINUE;
                            }

                            @Override
                            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                                Optional<PortablePath> rel = rel(file);
                                return rel.isEmpty()
                                        ? FileVisitResult.TERMINATE
                                        : fail(
                                                ErrorCode.READ_IO,
                                                rel.get(),
                                                "cannot be read: "
                                                        + exc.getClass().getSimpleName());
                            }
                        });
            } catch (IOException e) {
                problems.add(Diagnostic.error(
                        ErrorCode.READ_IO,
                        "",
                        "the project cannot be walked: " + e.getClass().getSimpleName()));
            }
            if (problems.isEmpty()) {
                checkBinLinks();
            }
        }

        private void checkBinLinks() {
            Set<PortablePath> deps = dependencySet();
            Path modules = root.resolve("node_modules");
            for (Path link : pendingLinks) {
                PortablePath rel = rel(link).orElseThrow();
                try {
                    Path target = Files.readSymbolicLink(link);
                    Path resolved = link.getParent().resolve(target).normalize();
                    Optional<PortablePath> inside = resolved.startsWith(modules) ? rel(resolved) : Optional.empty();
                    if (inside.isEmpty() || !deps.contains(inside.get())) {
                        problems.add(Diagnostic.error(
                                ErrorCode.PROJECT_BIN_LINK_ESCAPES,
                                rel.value(),
                                "the .bin link does not resolve to a dependency file inside the snapshot"));
                        return;
                    }
                    binLinks.put(rel, inside.get());
                } catch (IOException | UnsupportedOperationException e) {
                    problems.add(Diagnostic.error(
                            ErrorCode.PROJECT_BIN_LINK_ESCAPES, rel.value(), "the .bin link cannot be read"));
                    return;
                }
            }
        }

        private static boolean isPackageRoot(List<String> segs, int nm) {
            if (nm < 0) {
                return false;
            }
            int rest = segs.size() - nm - 1;
            if (rest == 1) {
                return !segs.get(nm + 1).startsWith("@") && !segs.get(nm + 1).startsWith(".");
            }
            return rest == 2 && segs.get(nm + 1).startsWith("@");
        }

        private Optional<PortablePath> rel(Path p) {
            List<String> parts = new ArrayList<>();
            for (Path s : root.relativize(p)) {
                parts.add(s.toString());
            }
            String value = String.join("/", parts);
            try {
                return Optional.of(PortablePath.of(value));
            } catch (InvalidValueException e) {
                problems.add(e.toDiagnostic(excerpt(value)));
                return Optional.empty();
            }
        }

        private FileVisitResult fail(ErrorCode code, PortablePath where, String message) {
            problems.add(Diagnostic.error(code, where.value(), message));
            return FileVisitResult.TERMINATE;
        }
    }
}
