package dev.skillgate.consent.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.InputType;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.util.List;
import org.apiguardian.api.API;

/**
 * Renders approval requests as terminal text in which no untrusted character can act on the
 * terminal: every control, format (including bidirectional overrides), separator and surrogate
 * character except TAB is shown as {@code \\uXXXX}, and long lines wrap onto marked continuation
 * lines (never cut: the human must be able to see every character they approve).
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ApprovalText {
    /** Longest rendered line, in code points, before it wraps onto a marked continuation line. */
    public static final int MAX_LINE = 400;

    private ApprovalText() {}

    /** The full request, ending with a newline. */
    public static String render(ApprovalRequest r) {
        StringBuilder out = new StringBuilder(1024);
        out.append("==== Skillgate approval request ====\n");
        out.append("WARNING: this script ")
                .append(ApprovalRequest.FULL_TRUST_WARNING)
                .append(".\n");
        line(out, "proposal", r.proposal().toString());
        line(out, "skill", r.skill().value());
        location(out, r.location());
        line(out, "revision", r.artifact().revision().toString());
        line(out, "agent", r.agent().value());
        line(out, "run", r.run().value());
        line(
                out,
                "workspace",
                r.workspace().realPath() + "  (file key " + r.workspace().fileKey() + ")");
        line(
                out,
                "runtime",
                r.runtime().executable() + " " + r.runtime().version()
                        + r.runtime().binaryDigest().map(d -> "  " + d).orElse(""));
        line(out, "argv", argv(r.argv()));
        line(
                out,
                "limits",
                "timeout " + r.timeout().millis() + " ms, stdout "
                        + r.outputLimit().bytes() + " bytes");
        line(out, "isolation", r.enforcement().isolation());
        for (String applied : r.enforcement().applied()) {
            line(out, "enforced", applied);
        }
        for (String not : r.enforcement().notEnforced()) {
            line(out, "NOT enforced", not);
        }
        ArtifactDescription a = r.artifact();
        line(out, "files", a.files().size() + " files, " + a.totalBytes() + " bytes");
        for (ArtifactDescription.FileEntry f : a.files()) {
            wrapped(
                    out,
                    "  ",
                    "  +",
                    padLeft(Long.toString(f.size()), 8) + "  " + f.path().value() + "  " + f.digest());
        }
        line(out, "entrypoint", a.entrypoint().value() + "  (answer 's' to show its source)");
        line(out, "input digest", r.invocation().digest().toString());
        out.append("input:\n");
        block(out, r.invocation().prettyText());
        line(out, "created", r.createdAt().toString());
        line(out, "expires", r.expiresAt().toString() + " (5 minutes; a clock change does not extend it)");
        return out.toString();
    }

    /** A workflow plan request, ending with a newline. */
    public static String render(WorkflowApprovalRequest r) {
        StringBuilder out = new StringBuilder(512);
        out.append("==== Skillgate workflow plan approval ====\n");
        out.append("WARNING: every step ")
                .append(ApprovalRequest.FULL_TRUST_WARNING)
                .append(".\n");
        line(out, "proposal", r.proposal().toString());
        line(out, "run", r.plan().run().value() + " (this run only; each step once)");
        line(out, "agent", r.plan().agent().value());
        line(
                out,
                "workspace",
                r.plan().workspace().realPath() + "  (file key "
                        + r.plan().workspace().fileKey() + ")");
        line(out, "steps", Integer.toString(r.plan().steps().size()));
        int i = 1;
        for (PlannedStep step : r.plan().steps()) {
            wrapped(
                    out,
                    "  ",
                    "  +",
                    (i++) + ". " + step.skill().value() + "  " + step.revision() + "  input "
                            + step.invocationDigest().map(Object::toString).orElse("any valid input"));
        }
        line(out, "expires", r.expiresAt().toString());
        return out.toString();
    }

    /** A prompt skill's first-use request, ending with a newline. */
    public static String render(ActivationApprovalRequest r) {
        StringBuilder out = new StringBuilder(1024);
        out.append("==== Skillgate first-use approval of a prompt skill ====\n");
        out.append("WARNING: ").append(ActivationApprovalRequest.PROMPT_WARNING).append(".\n");
        out.append("This approves the instructions only; running the skill's script needs its own consent.\n");
        line(out, "skill", r.skill().value());
        location(out, r.location());
        line(out, "revision", r.revision().toString());
        line(out, "agent", r.agent().value() + "  (" + r.agentKind() + " " + r.agentVersion() + ")");
        if (r.contract().isEmpty()) {
            line(out, "contract", "none: the skill declares no needs (origin local, unsigned)");
        } else {
            SkillContract c = r.contract().get();
            line(
                    out,
                    "contract",
                    r.contractDigest().get() + "  (" + c.identity().id() + " "
                            + c.identity().version() + ")");
            if (r.contractFromDialect()) {
                line(out, "dialect", "record type " + r.contractRecordType().get() + ", mapped by host code");
            }
            line(
                    out,
                    "origin",
                    c.origin().type().wireName()
                            + c.origin()
                                    .publisher()
                                    .map(p -> ", publisher " + p)
                                    .orElse(""));
            for (AgentRequirement a : c.agents()) {
                line(out, "agent range", a.kind() + " " + a.minVersion() + " to " + a.maxVersion());
            }
            line(
                    out,
                    "inputs",
                    names(c.inputTypes().stream()
                            .map(InputType::wireName)
                            .sorted()
                            .toList()));
            line(
                    out,
                    "tools",
                    names(c.tools().stream().map(ToolClass::wireName).sorted().toList()));
            line(out, "credentials", names(c.credentials()));
            line(out, "permission", c.permissionMode().wireName());
            line(
                    out,
                    "destinations",
                    names(c.networkDestinations().stream().map(Object::toString).toList()));
            line(out, "side effects", c.sideEffectClass().wireName());
        }
        long total = r.files().stream()
                .mapToLong(ArtifactDescription.FileEntry::size)
                .sum();
        line(out, "files", r.files().size() + " files, " + total + " bytes");
        for (ArtifactDescription.FileEntry f : r.files()) {
            wrapped(
                    out,
                    "  ",
                    "  +",
                    padLeft(Long.toString(f.size()), 8) + "  " + f.path().value() + "  " + f.digest());
        }
        line(out, "created", r.createdAt().toString());
        return out.toString();
    }

    private static String names(List<String> names) {
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** Source or other multi-line untrusted text, indented, each line made safe. */
    public static String block(String text) {
        StringBuilder out = new StringBuilder();
        block(out, text);
        return out.toString();
    }

    private static void block(StringBuilder out, String text) {
        String[] lines = text.split("\n", -1);
        for (String l : lines) {
            wrapped(out, "  | ", "  |+", l.endsWith("\r") ? l.substring(0, l.length() - 1) : l);
        }
    }

    /** The skill's root and directory, and every warning about its name (decision 0767). */
    private static void location(StringBuilder out, java.util.Optional<dev.skillgate.consent.SkillLocation> where) {
        if (where.isEmpty()) {
            return;
        }
        line(out, "skill root", where.get().root().toString());
        line(out, "skill directory", where.get().directory().toString());
        for (String w : where.get().warnings()) {
            line(out, "NAME WARNING", w);
        }
    }

    private static void line(StringBuilder out, String label, String value) {
        wrapped(out, pad(label + ":", 14), pad("", 14) + "+", value);
    }

    private static String argv(List<String> argv) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < argv.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            out.append('"')
                    .append(argv.get(i).replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        return out.append(']').toString();
    }

    private static String padLeft(String s, int width) {
        StringBuilder out = new StringBuilder();
        while (out.length() + s.length() < width) {
            out.append(' ');
        }
        return out.append(s).toString();
    }

    private static String pad(String s, int width) {
        StringBuilder out = new StringBuilder(s);
        while (out.length() < width) {
            out.append(' ');
        }
        return out.toString();
    }

    /** Escapes everything that could act on a terminal (TAB excepted); nothing is cut. */
    public static String safe(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (cp != '\t' && unsafe(cp)) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.appendCodePoint(cp);
            }
        }
        return out.toString();
    }

    /**
     * Appends {@code first} + the escaped text, wrapped at {@link #MAX_LINE} code points with
     * continuation lines starting {@code rest}: long values are wrapped, never cut, so the human
     * sees every character.
     */
    private static void wrapped(StringBuilder out, String first, String rest, String untrusted) {
        String text = safe(untrusted);
        out.append(first);
        int count = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (count == MAX_LINE) {
                out.append('\n').append(rest);
                count = 0;
            }
            out.appendCodePoint(cp);
            count++;
        }
        out.append('\n');
    }

    private static boolean unsafe(int cp) {
        int type = Character.getType(cp);
        return type == Character.CONTROL
                || type == Character.FORMAT
                || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.SURROGATE
                || type == Character.PRIVATE_USE
                || type == Character.UNASSIGNED;
    }
}
