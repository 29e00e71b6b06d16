package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.ShadowedSkill;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.Limits;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import dev.skillgate.runner.ProgressEvent;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code skillgate run} prints: the refusals before anything ran, the receipt line, the
 * envelope as text, the script's escaped stderr, and the {@code skillgate.run/1} JSON document
 * (docs/cli.md). Every value that came from a skill, a path or the script is escaped for a terminal
 * ({@link Args#safe}); nothing here decides an outcome except the exit code of an envelope.
 */
final class RunReport {
    private RunReport() {}

    /**
     * The refusals of one run before the engine ran anything: a line on standard error and, with
     * {@code --json}, the {@code skillgate.run/1} document with a {@code REFUSED} envelope (decision
     * 0637).
     */
    static final class Refusals {
        private final boolean json;
        private final PrintStream out;
        private final PrintStream err;
        private final Path dir;
        private final Optional<Revision> approve;

        Refusals(boolean json, PrintStream out, PrintStream err, Path dir, Optional<Revision> approve) {
            this.json = json;
            this.out = out;
            this.err = err;
            this.dir = dir;
            this.approve = approve;
        }

        /** Prints {@code line} (and the document) and returns {@code code}. */
        ExitCode refuse(ExitCode code, String line, Diagnostic why) {
            err.println(line);
            if (json) {
                JsonOut.print(out, refusedDocument(dir, approve, List.of(why)));
            }
            return code;
        }

        /** The runtime steps' refusal ({@link ExitCode#REFUSED}). */
        ExitCode refuse(RunRuntime.Refusal r) {
            return refuse(ExitCode.REFUSED, r.line(), r.diagnostic());
        }

        /** A data directory another user could change ({@link ExitCode#REFUSED}). */
        ExitCode unsafe(Diagnostic unsafe) {
            return refuse(
                    ExitCode.REFUSED,
                    "skillgate run: " + unsafe.code() + " at " + Args.safe(unsafe.location()) + ": "
                            + Args.safe(unsafe.message())
                            + "; nothing ran (choose a --data-dir only you can change)",
                    unsafe);
        }

        /** Not a skill, or no skill of the name: the document only (the reasons are already printed). */
        ExitCode notFound(List<Diagnostic> why) {
            if (json) {
                JsonOut.print(out, refusedDocument(dir, approve, why));
            }
            return ExitCode.INVALID;
        }
    }

    /** The {@code skillgate.run/1} document of a refusal before a skill or a supervisor was known. */
    private static Map<String, Object> refusedDocument(Path dir, Optional<Revision> approve, List<Diagnostic> why) {
        ExecutionEnvelope env = ExecutionEnvelope.refused(RunId.random(), Optional.empty(), Duration.ZERO, why);
        return document(null, dir, approve, Optional.empty(), null, env, DataDirectories.runningAsRoot());
    }

    /** SPEC §13: 0 success, 1 failed or invalid, 3 refused, 4 cleanup unknown. */
    static ExitCode exitCode(ExecutionEnvelope env) {
        return switch (env.status()) {
            case SUCCEEDED -> ExitCode.OK;
            case CLEANUP_UNKNOWN -> ExitCode.CLEANUP_UNKNOWN;
            case REFUSED -> invalidInput(env) ? ExitCode.INVALID : ExitCode.REFUSED;
            default -> ExitCode.INVALID;
        };
    }

    /** A refusal because the input or the bundle is invalid (not consent, policy, gates or supervision). */
    private static boolean invalidInput(ExecutionEnvelope env) {
        if (env.errors().isEmpty()) {
            return false;
        }
        ErrorGroup group = env.errors().get(0).code().group();
        return switch (group) {
            case JSON, VALUE, SCHEMA, MANIFEST, FIELD, FRONTMATTER, PATH, READ, LAYOUT, CONTRACT -> true;
            default -> env.errors().get(0).code() == ErrorCode.EXECUTION_UNAVAILABLE;
        };
    }

    /** Says why {@code dir} was not selected as a skill, and returns the reasons as diagnostics. */
    static List<Diagnostic> notASkill(Path dir, PrintStream err) {
        List<Diagnostic> why = new ArrayList<>();
        ValidationReport report = SkillValidator.validate(dir);
        if (report.loadable()) {
            // The skill is fine, but the engine finds skills by discovering DIR's parent, and that
            // walk did not select it: say why instead of calling a loadable skill unloadable.
            err.println("skillgate run: " + Args.safe(dir.toString())
                    + " is a loadable skill, but discovery of its parent directory did not select it");
            Path parent = dir.getParent() == null ? dir : dir.getParent();
            DiscoveryResult found = SkillDiscovery.discover(DiscoveryOptions.of(List.of(parent)));
            for (ShadowedSkill s : found.shadowed()) {
                if (dir.equals(s.location().getParent())) {
                    String message = "a skill of the same name comes first: "
                            + Args.path(s.winner().toString());
                    err.println("  - " + ErrorCode.LAYOUT_SHADOWED + ": " + message);
                    why.add(Diagnostic.error(ErrorCode.LAYOUT_SHADOWED, dir.toString(), message));
                }
            }
            for (Diagnostic d : found.diagnostics()) {
                if (d.code() == ErrorCode.LAYOUT_WALK_LIMIT) {
                    err.println("  - " + d.code() + ": " + d.message());
                    why.add(d);
                }
            }
            err.println("  move the skill into a directory of its own skills to run it");
            if (why.isEmpty()) {
                why.add(Diagnostic.error(
                        ErrorCode.SKILL_NOT_FOUND,
                        dir.toString(),
                        "a loadable skill, but discovery of its parent directory did not select it"));
            }
            return why;
        }
        err.println("skillgate run: " + Args.safe(dir.toString()) + " is not a loadable skill");
        for (Diagnostic d : report.loadErrors()) {
            err.println("  - " + d.code() + ": " + d.message());
            why.add(d);
        }
        if (why.isEmpty()) {
            why.add(Diagnostic.error(ErrorCode.SKILL_NOT_FOUND, dir.toString(), "not a loadable skill"));
        }
        return why;
    }

    /**
     * After a run refused with {@code SUPERVISOR_TAMPERED} over a temporary data directory: the helper
     * kept for such runs in {@code shared} (decision 0891) is not the shipped one, and it is never
     * replaced, so every later run would be refused the same way. Says where it is and what to do.
     */
    static void printIfSharedHelperTampered(PrintStream err, ExecutionEnvelope env, Path shared) {
        for (Diagnostic d : env.errors()) {
            if (d.code() == ErrorCode.SUPERVISOR_TAMPERED) {
                err.println("skillgate run: the supervisor helper kept for temporary runs in "
                        + Args.path(shared.toString()) + " is not the one this version ships: a process with"
                        + " your user's rights changed it, and nothing ran. It is never replaced"
                        + " automatically; once you know what changed it, remove that directory and the next"
                        + " run extracts the helper again.");
                return;
            }
        }
    }

    /** Says, before the script starts, that a stored receipt authorised this launch and nobody was asked. */
    static void printReceipt(PrintStream talk, LaunchAuthority.TrustedRevision receipt, Path dataDir) {
        TrustScope scope = receipt.scope();
        talk.println("authorised by a trusted-revision receipt, not asked");
        talk.println("  receipt: " + receipt.receipt().id() + " (approved "
                + receipt.receipt().approvedAt() + ")");
        talk.println("  scope: " + receipt.scopeId() + ": revision " + scope.revision() + ", agent "
                + Args.safe(scope.agent().value()) + ", workspace "
                + Args.safe(scope.workspace().realPath().toString()) + ", timeout at most "
                + scope.timeoutCeiling().millis() + " ms, output at most "
                + scope.outputCeiling().bytes()
                + " bytes");
        talk.println("  revoke it with: skillgate trust revoke --data-dir " + Args.safe(dataDir.toString())
                + " --scope " + receipt.scopeId());
    }

    /**
     * {@code --show-stderr} (decision 0632): the script's captured stderr on standard error, line by
     * line, every line escaped (control and format characters as {@code \\uXXXX}, bytes that are not
     * UTF-8 as {@code \\xNN}), then whether bytes are missing. At most 16 KiB of the script's bytes.
     */
    static void printScriptStderr(PrintStream err, Optional<ProgressEvent.Stderr> captured, ExecutionEnvelope env) {
        if (captured.isEmpty()) {
            err.println("script stderr: not captured (the script did not start, or the run did not settle)");
            return;
        }
        ProgressEvent.Stderr s = captured.get();
        if (s.size() == 0) {
            err.println("script stderr: empty");
            return;
        }
        err.println("script stderr: " + s.size() + " bytes (the script's own bytes, escaped):");
        for (String line : escapedLines(s.bytes())) {
            err.println("  | " + line);
        }
        if (s.truncated()) {
            boolean overflowed = false;
            for (Diagnostic d : env.errors()) {
                overflowed |= d.code() == ErrorCode.OUTPUT_LIMIT && d.location().equals("stderr");
            }
            err.println(
                    overflowed
                            ? "script stderr truncated: the script wrote more than " + Limits.STDERR_BYTES
                                    + " bytes, which ended the run (" + ErrorCode.OUTPUT_LIMIT + "); the rest was"
                                    + " not kept"
                            : "script stderr truncated: the capture was full (" + Limits.STDERR_BYTES
                                    + " bytes) when the run was ended; later bytes were not kept");
        }
    }

    /** The lines of {@code bytes} (split at {@code \n}), each escaped for a terminal. */
    static List<String> escapedLines(byte[] bytes) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                if (i < bytes.length || start < bytes.length) {
                    lines.add(escapedLine(bytes, start, i));
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static String escapedLine(byte[] bytes, int from, int to) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
        CharBuffer chars = CharBuffer.allocate(to - from + 1);
        StringBuilder line = new StringBuilder();
        while (true) {
            CoderResult r = decoder.decode(in, chars, true);
            chars.flip();
            line.append(Text.sanitize(chars.toString(), Integer.MAX_VALUE));
            chars.clear();
            if (r.isError()) {
                for (int k = 0; k < r.length(); k++) {
                    line.append(String.format("\\x%02X", in.get() & 0xFF));
                }
            } else if (r.isUnderflow()) {
                return line.toString();
            }
        }
    }

    /** The envelope as text, one field a line, after an empty line. No lambdas (decision 0895). */
    static void printEnvelope(PrintStream out, ExecutionEnvelope env) {
        out.println();
        out.println("status: " + env.status());
        if (env.output().isPresent()) {
            out.println("output: " + Args.safe(env.output().get()));
        }
        out.println("run: " + env.runId());
        out.println("revision: "
                + (env.revision().isPresent() ? env.revision().get().toString() : "-"));
        out.println("runtime: "
                + (env.runtimeVersion().isPresent()
                        ? Args.safe(env.runtimeVersion().get())
                        : "-")
                + (env.runtimeSha256().isPresent() ? " " + env.runtimeSha256().get() : ""));
        out.println("exit: " + exitText(env.exit()));
        out.println("elapsed: " + env.elapsed().toMillis() + " ms");
        CleanupReport c = env.cleanup();
        out.println("cleanup: " + c.status() + " (" + c.descendantsSeen() + " process(es) seen"
                + (c.detachedSeen() ? ", a detached descendant was seen" : "") + ")"
                + (c.retainedStaging().isPresent()
                        ? "; staging kept at "
                                + Args.safe(c.retainedStaging().get().toString())
                        : ""));
        out.println("hardening: " + env.hardening());
        out.println("confinement: " + confinementText(env.confinement()));
        for (Diagnostic d : env.errors()) {
            out.println("  " + d.severity().name().toLowerCase(Locale.ROOT) + ": " + d.code()
                    + (d.location().isEmpty() ? "" : " at " + d.location()) + ": " + d.message());
        }
    }

    /**
     * Every part of the envelope's confinement, in {@link Confinement.Kind} order: {@code process
     * reach ENFORCED, file writes NOT_REQUESTED, network NOT_REQUESTED, memory NOT_REQUESTED, process
     * count NOT_REQUESTED, cpu NOT_REQUESTED}.
     */
    static String confinementText(Confinement c) {
        StringBuilder b = new StringBuilder();
        for (Confinement.Kind k : Confinement.Kind.values()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(k.name().toLowerCase(Locale.ROOT).replace('_', ' '))
                    .append(' ')
                    .append(c.part(k));
        }
        return b.toString();
    }

    /** The JSON member of a part: the record component's name ({@code processReach}, {@code cpu}). */
    private static String confinementMember(Confinement.Kind k) {
        String[] words = k.name().toLowerCase(Locale.ROOT).split("_");
        StringBuilder b = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i], 1, words[i].length());
        }
        return b.toString();
    }

    private static String exitText(ProcessExit exit) {
        if (exit instanceof ProcessExit.Code c) {
            return "code " + c.code();
        }
        if (exit instanceof ProcessExit.Signal s) {
            return "signal " + s.signal();
        }
        return "not observed";
    }

    /**
     * The {@code skillgate.run/1} document; {@code skill} and {@code supervisor} are {@code null}
     * (JSON {@code null}) when the run was refused before they were known.
     */
    static Map<String, Object> document(
            String skill,
            Path dir,
            Optional<Revision> approve,
            Optional<LaunchAuthority> authority,
            SupervisorSelection supervisor,
            ExecutionEnvelope env,
            boolean root) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", "skillgate.run/1");
        doc.put("skill", skill); // null when refused before the skill was known
        doc.put("directory", dir.toString());
        Optional<LaunchAuthority.TrustedRevision> receipt = authority
                .filter(LaunchAuthority.TrustedRevision.class::isInstance)
                .map(LaunchAuthority.TrustedRevision.class::cast);
        doc.put(
                "approval",
                receipt.isPresent() ? "receipt" : approve.isPresent() ? "--approve " + approve.get() : "terminal");
        doc.put("receipt", receipt.map(RunReport::receipt).orElse(null));
        doc.put("runningAsRoot", root);
        if (supervisor == null) {
            doc.put("supervisor", null); // refused before a supervisor was selected
        } else {
            Map<String, Object> sup = new LinkedHashMap<>();
            sup.put("name", supervisor.name());
            sup.put("available", supervisor.available());
            sup.put("provesCleanup", supervisor.provesCleanup());
            sup.put("explanation", supervisor.explanation());
            doc.put("supervisor", sup);
        }
        doc.put("envelope", envelope(env));
        return doc;
    }

    private static Map<String, Object> receipt(LaunchAuthority.TrustedRevision r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.receipt().id().toString());
        m.put("approvedAt", r.receipt().approvedAt().toString());
        Map<String, Object> scope = new LinkedHashMap<>();
        scope.put("id", r.scopeId().toString());
        scope.put("revision", r.scope().revision().toString());
        scope.put("agent", r.scope().agent().value());
        scope.put("workspace", r.scope().workspace().realPath().toString());
        scope.put("timeoutCeilingMillis", r.scope().timeoutCeiling().millis());
        scope.put("outputCeilingBytes", r.scope().outputCeiling().bytes());
        m.put("scope", scope);
        return m;
    }

    static Map<String, Object> envelope(ExecutionEnvelope env) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", env.status().name());
        m.put("runId", env.runId().value());
        m.put("revision", env.revision().map(Revision::toString).orElse(null));
        m.put("runtimeVersion", env.runtimeVersion().orElse(null));
        m.put("runtimeSha256", env.runtimeSha256().map(Sha256Digest::toString).orElse(null));
        m.put("elapsedMillis", env.elapsed().toMillis());
        Map<String, Object> exit = new LinkedHashMap<>();
        if (env.exit() instanceof ProcessExit.Code c) {
            exit.put("kind", "code");
            exit.put("code", c.code());
        } else if (env.exit() instanceof ProcessExit.Signal s) {
            exit.put("kind", "signal");
            exit.put("signal", s.signal());
        } else {
            exit.put("kind", "notObserved");
        }
        m.put("exit", exit);
        m.put("output", env.output().orElse(null));
        m.put("errors", JsonOut.diagnostics(env.errors()));
        Map<String, Object> cleanup = new LinkedHashMap<>();
        cleanup.put("status", env.cleanup().status().name());
        cleanup.put("descendantsSeen", env.cleanup().descendantsSeen());
        cleanup.put("detachedSeen", env.cleanup().detachedSeen());
        cleanup.put(
                "retainedStaging",
                env.cleanup().retainedStaging().map(Path::toString).orElse(null));
        m.put("cleanup", cleanup);
        m.put("hardening", env.hardening().name());
        Map<String, Object> confinement = new LinkedHashMap<>();
        for (Confinement.Kind k : Confinement.Kind.values()) {
            confinement.put(confinementMember(k), env.confinement().part(k).name());
        }
        m.put("confinement", confinement);
        return m;
    }
}
