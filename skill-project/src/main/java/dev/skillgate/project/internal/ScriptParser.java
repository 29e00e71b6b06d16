package dev.skillgate.project.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.project.ProjectLimits;
import dev.skillgate.project.ProjectStep;
import dev.skillgate.project.ScriptVerdict;
import dev.skillgate.project.StepForm;
import dev.skillgate.project.StepKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Turns one {@code scripts} entry into a supported step or a refusal (seed ADR-007). Pure: it reads
 * nothing itself; the {@link Context} answers which files the snapshot holds. Checks run in a fixed
 * order so that every hostile form is named by its own code: lifecycle names, chaining, assignments,
 * globs, other shell syntax, spacing, package managers and runners, watch modes, then the forms.
 */
public final class ScriptParser {

    /** Longest script text looked at. */
    public static final int MAX_SCRIPT_CHARS = 4096;

    /** npm's lifecycle script names: never run by this profile, whatever they say. */
    public static final Set<String> LIFECYCLE = Set.of(
            "prepare",
            "preprepare",
            "postprepare",
            "preinstall",
            "install",
            "postinstall",
            "prepublish",
            "prepublishOnly",
            "publish",
            "postpublish",
            "prepack",
            "postpack",
            "preversion",
            "version",
            "postversion",
            "dependencies",
            "prerestart",
            "restart",
            "postrestart",
            "prestart",
            "start",
            "poststart",
            "prestop",
            "stop",
            "poststop");

    private static final Set<String> PACKAGE_MANAGERS = Set.of("npm", "yarn", "pnpm", "corepack", "bun");
    private static final Set<String> RUNNERS = Set.of("npx", "pnpx", "bunx");
    private static final Set<String> INSTALLING = Set.of(
            "install",
            "i",
            "ci",
            "add",
            "exec",
            "x",
            "dlx",
            "publish",
            "rebuild",
            "link",
            "update",
            "up",
            "uninstall",
            "remove",
            "rm",
            "pack",
            "create",
            "init");

    /** What the snapshot holds, for the path checks. */
    public interface Context {
        /** Whether {@code path} is an inspected regular source file (outside {@code node_modules}). */
        boolean isSourceFile(PortablePath path);

        /** The declared job-local output directory. */
        PortablePath outputDirectory();

        /** Checks a tsconfig a build names; empty when it is usable. */
        Optional<Diagnostic> checkTsconfig(PortablePath path);

        /** Whether the installed dependency tree holds the TypeScript compiler's entrypoint. */
        boolean hasTypescript();
    }

    private ScriptParser() {}

    /** The step kind a script name stands for, if it is a test or build script. */
    public static Optional<StepKind> kindOf(String name) {
        if (name.equals("test") || name.startsWith("test:")) {
            return Optional.of(StepKind.TEST);
        }
        if (name.equals("build") || name.startsWith("build:")) {
            return Optional.of(StepKind.BUILD);
        }
        return Optional.empty();
    }

    /** Whether {@code name} is an npm lifecycle hook among {@code names}. */
    public static boolean isHook(String name, Set<String> names) {
        if (LIFECYCLE.contains(name)) {
            return true;
        }
        for (String prefix : List.of("pre", "post")) {
            if (name.startsWith(prefix) && name.length() > prefix.length()) {
                String rest = name.substring(prefix.length());
                if (names.contains(rest) || rest.equals("test")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The verdict for script {@code name} with text {@code source}, among the script names {@code names}. */
    public static ScriptVerdict parse(String name, String source, Set<String> names, Context context) {
        try {
            return new ScriptVerdict.Supported(name, source, resolve(name, source, names, context));
        } catch (Refusal r) {
            return new ScriptVerdict.Refused(
                    name, source, Diagnostic.error(r.code, "scripts." + excerpt(name), r.getMessage()));
        }
    }

    private static ProjectStep resolve(String name, String source, Set<String> names, Context context) throws Refusal {
        if (isHook(name, names)) {
            throw new Refusal(ErrorCode.PROJECT_LIFECYCLE_HOOK, "a lifecycle hook; hooks never run");
        }
        Optional<StepKind> kind = kindOf(name);
        if (kind.isEmpty()) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_UNSUPPORTED, "only test and build scripts are supported");
        }
        for (String prefix : List.of("pre", "post")) {
            if (names.contains(prefix + name)) {
                throw new Refusal(
                        ErrorCode.PROJECT_LIFECYCLE_HOOK,
                        "the script has a '" + prefix
                                + "' hook, which never runs; refused rather than run differently from npm");
            }
        }
        if (source.length() > MAX_SCRIPT_CHARS) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_UNSUPPORTED,
                    "the script is longer than " + MAX_SCRIPT_CHARS + " characters");
        }
        if (source.indexOf('\n') >= 0
                || source.indexOf('\r') >= 0
                || source.contains("&")
                || source.contains("|")
                || source.contains(";")) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_CHAINING, "the script chains commands; only one command is supported");
        }
        String first = source.strip().split("[ \t]+", 2)[0];
        if (first.matches("[A-Za-z_][A-Za-z0-9_]*=.*") || first.equals("env") || first.equals("cross-env")) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_ASSIGNMENT,
                    "the script sets environment variables; the environment is fixed");
        }
        for (char c : new char[] {'*', '?', '[', ']', '{', '}'}) {
            if (source.indexOf(c) >= 0) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_GLOB, "the script holds a glob; only exact paths are supported");
            }
        }
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c < 0x20 && c != '\t' || c > 0x7e) {
                throw new Refusal(ErrorCode.PROJECT_SCRIPT_SHELL, "the script holds control or non-ASCII characters");
            }
            if ("'\"`$<>\\()~#!%^".indexOf(c) >= 0) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_SHELL,
                        "the script holds shell syntax ('" + c + "'); no shell interprets it");
            }
        }
        if (source.isEmpty()
                || source.indexOf('\t') >= 0
                || source.contains("  ")
                || source.startsWith(" ")
                || source.endsWith(" ")) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_SHELL, "tokens must be separated by single spaces");
        }
        List<String> tokens = List.of(source.split(" "));
        String command = tokens.get(0);
        if (RUNNERS.contains(command)) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_NPX, "'" + command + "' resolves or downloads packages; it never runs");
        }
        if (PACKAGE_MANAGERS.contains(command)) {
            if (tokens.size() > 1 && INSTALLING.contains(tokens.get(1))) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_INSTALL,
                        "'" + command + " " + tokens.get(1) + "' never runs: no install, exec, publish or rebuild");
            }
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_NPM,
                    "'" + command + "' never runs: package managers are not run, nor is 'npm run'");
        }
        for (String t : tokens) {
            if (t.startsWith("--watch")
                    || t.equals("-w")
                    || t.startsWith("--inspect")
                    || t.equals("serve")
                    || t.equals("--serve")
                    || t.equals("dev")) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_WATCH, "'" + t + "' asks for a watch, serve or inspector mode");
            }
        }
        if (command.equals("node")) {
            return node(name, source, kind.get(), tokens, context);
        }
        if (command.equals("tsc")) {
            return tsc(name, source, kind.get(), tokens, context);
        }
        throw new Refusal(
                ErrorCode.PROJECT_SCRIPT_UNSUPPORTED,
                "only 'node' and 'tsc' commands are supported, not '" + excerpt(command) + "'");
    }

    private static ProjectStep node(String name, String source, StepKind kind, List<String> tokens, Context context)
            throws Refusal {
        if (tokens.size() >= 2 && tokens.get(1).equals("--test")) {
            if (kind != StepKind.TEST) {
                throw new Refusal(ErrorCode.PROJECT_SCRIPT_UNSUPPORTED, "'node --test' is a test form, not a build");
            }
            List<String> paths = tokens.subList(2, tokens.size());
            if (paths.isEmpty()) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_UNSUPPORTED,
                        "'node --test' without exact test files would discover files by pattern");
            }
            if (paths.size() > ProjectLimits.TEST_FILES) {
                throw new Refusal(
                        ErrorCode.PROJECT_SCRIPT_UNSUPPORTED, "more than " + ProjectLimits.TEST_FILES + " test files");
            }
            List<String> args = new ArrayList<>();
            args.add("--test");
            List<PortablePath> generated = new ArrayList<>();
            for (String p : paths) {
                PortablePath path = path(p);
                if (!(path.value().endsWith(".test.js") || path.value().endsWith(".test.mjs"))) {
                    throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a test file must end in .test.js or .test.mjs");
                }
                if (args.contains(path.value())) {
                    throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a test file is named twice");
                }
                if (underOutput(path, context)) {
                    generated.add(path);
                } else if (!context.isSourceFile(path)) {
                    throw new Refusal(
                            ErrorCode.PROJECT_SCRIPT_PATH, "'" + excerpt(p) + "' is not an inspected source file");
                }
                args.add(path.value());
            }
            return new ProjectStep(name, source, kind, StepForm.NODE_TEST, args, generated);
        }
        if (tokens.size() != 2) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_UNSUPPORTED,
                    "'node' takes exactly one entrypoint or '--test' with exact files");
        }
        String p = tokens.get(1);
        if (p.startsWith("-")) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_UNSUPPORTED, "the node option '" + excerpt(p) + "' is not supported");
        }
        PortablePath path = path(p);
        if (!(path.value().endsWith(".js")
                || path.value().endsWith(".mjs")
                || path.value().endsWith(".cjs"))) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "an entrypoint must end in .js, .mjs or .cjs");
        }
        List<PortablePath> generated = new ArrayList<>();
        if (underOutput(path, context)) {
            if (kind != StepKind.TEST) {
                throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a build entrypoint cannot be a generated file");
            }
            generated.add(path);
        } else if (!context.isSourceFile(path)) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "'" + excerpt(p) + "' is not an inspected source file");
        }
        return new ProjectStep(name, source, kind, StepForm.NODE_ENTRYPOINT, List.of("--", path.value()), generated);
    }

    private static ProjectStep tsc(String name, String source, StepKind kind, List<String> tokens, Context context)
            throws Refusal {
        if (kind != StepKind.BUILD) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_UNSUPPORTED, "'tsc' is a build form, not a test");
        }
        if (tokens.size() != 3 || !tokens.get(1).equals("--project")) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_UNSUPPORTED,
                    "only 'tsc --project TSCONFIG' is supported, with no other option");
        }
        PortablePath config = path(tokens.get(2));
        if (!config.fileName().startsWith("tsconfig") || !config.fileName().endsWith(".json")) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "the project must be a tsconfig*.json file");
        }
        if (!context.isSourceFile(config)) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_PATH, "'" + excerpt(tokens.get(2)) + "' is not an inspected source file");
        }
        Optional<Diagnostic> problem = context.checkTsconfig(config);
        if (problem.isPresent()) {
            throw new Refusal(problem.get().code(), problem.get().message());
        }
        if (!context.hasTypescript()) {
            throw new Refusal(
                    ErrorCode.PROJECT_TYPESCRIPT_MISSING,
                    "no installed typescript package with bin/tsc in node_modules");
        }
        return new ProjectStep(
                name,
                source,
                kind,
                StepForm.TSC_PROJECT,
                List.of("--", ProjectStep.TSC_ENTRYPOINT.value(), "--project", config.value()),
                List.of());
    }

    private static boolean underOutput(PortablePath path, Context context) {
        List<String> out = context.outputDirectory().segments();
        List<String> segs = path.segments();
        return segs.size() > out.size() && segs.subList(0, out.size()).equals(out);
    }

    private static PortablePath path(String token) throws Refusal {
        if (token.startsWith("-")) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a path must not start with a dash");
        }
        if (token.startsWith("/") || token.startsWith("./") || token.contains("/./") || token.equals(".")) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a path must be relative and exact (no '/', './' prefix)");
        }
        if (!PortablePath.isValid(token)) {
            throw new Refusal(
                    ErrorCode.PROJECT_SCRIPT_PATH,
                    "'" + excerpt(token) + "' is not an exact relative path without traversal");
        }
        PortablePath p = PortablePath.of(token);
        if (p.segments().get(0).equals("node_modules") || p.segments().contains("node_modules")) {
            throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a script path must not point into node_modules");
        }
        for (String s : p.segments()) {
            if (s.startsWith("-") || s.startsWith(".")) {
                throw new Refusal(ErrorCode.PROJECT_SCRIPT_PATH, "a path segment must not start with a dash or a dot");
            }
        }
        return p;
    }

    private static String excerpt(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 60 ? printable.substring(0, 60) + "…" : printable;
    }

    private static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        final transient ErrorCode code;

        Refusal(ErrorCode code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }
}
