package dev.skillgate.console.internal;

import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.SkillLocation;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.WorkspaceIdentity;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns requests, envelopes and settings into the JSON the page renders. Every string that came from
 * a skill, an input or the file system passes {@link #text} (controls, format and bidi characters
 * shown as {@code \\uXXXX}); the page inserts every value as text, never as HTML.
 */
public final class Display {
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Display() {}

    /**
     * {@code s} with every control character except TAB and LF, every format character (bidi
     * overrides, zero-width characters), and the line and paragraph separators shown as
     * {@code \\uXXXX}. Markup is left as it is: the page inserts it as text.
     */
    public static String text(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            int type = Character.getType(cp);
            boolean shown = cp == '\t'
                    || cp == '\n'
                    || !(type == Character.CONTROL
                            || type == Character.FORMAT
                            || type == Character.LINE_SEPARATOR
                            || type == Character.PARAGRAPH_SEPARATOR
                            || type == Character.SURROGATE
                            || type == Character.PRIVATE_USE
                            || type == Character.UNASSIGNED);
            if (shown) {
                out.appendCodePoint(cp);
            } else if (cp <= 0xFFFF) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.append(String.format("\\U%06X", cp));
            }
        }
        return out.toString();
    }

    /** {@link #text} on one line: LF and TAB shown escaped too. */
    public static String line(String s) {
        return text(s).replace("\n", "\\u000A").replace("\t", "\\u0009");
    }

    static ObjectNode execution(ApprovalRequest r, String description) {
        ObjectNode n = NODES.objectNode();
        n.put("warning", r.fullTrustWarning());
        n.put("skill", line(r.skill().value()));
        n.put("description", line(description));
        n.put("run", line(r.run().value()));
        n.put("agent", line(r.agent().value()));
        n.put("revision", r.artifact().revision().toString());
        r.location().ifPresent(l -> location(n.putObject("location"), l));
        files(n.putArray("files"), r.artifact().files());
        n.put("totalBytes", r.artifact().totalBytes());
        n.put("entrypoint", line(r.artifact().entrypoint().value()));
        n.put("input", text(r.invocation().prettyText()));
        n.put("inputDigest", r.invocation().digest().toString());
        ArrayNode argv = n.putArray("argv");
        r.argv().forEach(a -> argv.add(line(a)));
        workspace(n.putObject("workspace"), r.workspace());
        ObjectNode runtime = n.putObject("runtime");
        runtime.put("executable", line(r.runtime().executable().toString()));
        runtime.put("version", line(r.runtime().version()));
        runtime.put("sha256", r.runtime().binaryDigest().map(Object::toString).orElse(""));
        ObjectNode limits = n.putObject("limits");
        limits.put("timeoutMillis", r.timeout().millis());
        limits.put("outputBytes", r.outputLimit().bytes());
        ObjectNode enforcement = n.putObject("enforcement");
        enforcement.put("isolation", r.enforcement().isolation());
        ArrayNode applied = enforcement.putArray("enforced");
        r.enforcement().applied().forEach(a -> applied.add(line(a)));
        ArrayNode not = enforcement.putArray("notEnforced");
        r.enforcement().notEnforced().forEach(a -> not.add(line(a)));
        n.put("createdAt", r.createdAt().toString());
        n.put("expiresAt", r.expiresAt().toString());
        return n;
    }

    static ObjectNode activation(ActivationApprovalRequest r, String description) {
        ObjectNode n = NODES.objectNode();
        n.put("warning", r.promptWarning());
        n.put("skill", line(r.skill().value()));
        n.put("description", line(description));
        n.put("agent", line(r.agent().value()));
        n.put("agentKind", line(r.agentKind()));
        n.put("agentVersion", line(r.agentVersion()));
        n.put("revision", r.revision().toString());
        r.location().ifPresent(l -> location(n.putObject("location"), l));
        files(n.putArray("files"), r.files());
        n.put("contractDigest", r.contractDigest().map(Object::toString).orElse(""));
        n.put("contractRecordType", r.contractRecordType().map(Display::line).orElse(""));
        n.put("contract", r.contract().map(Display::contract).orElse("declares nothing (no skill.contract.json)"));
        n.put("createdAt", r.createdAt().toString());
        return n;
    }

    /** Where the skill was found and the findings about its name, each with its code (decision 0768). */
    private static void location(ObjectNode n, SkillLocation l) {
        n.put("root", line(l.root().toString()));
        n.put("directory", line(l.directory().toString()));
        ArrayNode findings = n.putArray("nameFindings");
        for (Diagnostic d : l.findings()) {
            ObjectNode f = findings.addObject();
            f.put("code", d.code().name());
            f.put("message", line(d.message()));
        }
    }

    private static String contract(SkillContract c) {
        StringBuilder b = new StringBuilder();
        b.append("origin: ").append(c.origin()).append('\n');
        b.append("agents: ").append(c.agents()).append('\n');
        b.append("input types: ").append(c.inputTypes()).append('\n');
        b.append("tools: ").append(c.tools()).append('\n');
        b.append("credentials: ").append(c.credentials()).append('\n');
        b.append("permission mode: ").append(c.permissionMode()).append('\n');
        b.append("network destinations: ").append(c.networkDestinations()).append('\n');
        b.append("side-effect class: ").append(c.sideEffectClass());
        return text(b.toString());
    }

    static ObjectNode workflow(WorkflowApprovalRequest r) {
        ObjectNode n = NODES.objectNode();
        n.put("warning", r.fullTrustWarning());
        n.put("run", line(r.plan().run().value()));
        n.put("agent", line(r.plan().agent().value()));
        workspace(n.putObject("workspace"), r.plan().workspace());
        ArrayNode steps = n.putArray("steps");
        for (PlannedStep s : r.plan().steps()) {
            ObjectNode step = steps.addObject();
            step.put("skill", line(s.skill().value()));
            step.put("revision", s.revision().toString());
            step.put("inputDigest", s.invocationDigest().map(Object::toString).orElse("any input"));
        }
        n.put("createdAt", r.createdAt().toString());
        n.put("expiresAt", r.expiresAt().toString());
        return n;
    }

    private static void files(ArrayNode out, List<ArtifactDescription.FileEntry> files) {
        for (ArtifactDescription.FileEntry f : files) {
            ObjectNode o = out.addObject();
            o.put("path", line(f.path().value()));
            o.put("size", f.size());
            o.put("sha256", f.digest().toString());
        }
    }

    static void workspace(ObjectNode out, WorkspaceIdentity w) {
        out.put("realPath", line(w.realPath().toString()));
        out.put("fileKey", line(w.fileKey()));
    }

    static ObjectNode envelope(ExecutionEnvelope e) {
        ObjectNode n = NODES.objectNode();
        n.put("status", e.status().name());
        n.put("run", line(e.runId().value()));
        n.put("revision", e.revision().map(Object::toString).orElse(""));
        n.put("runtimeVersion", e.runtimeVersion().map(Display::line).orElse(""));
        n.put("elapsedMillis", e.elapsed().toMillis());
        n.put("exit", exit(e.exit()));
        if (e.output().isPresent()) {
            n.put("output", text(e.output().get()));
        } else {
            n.putNull("output");
        }
        diagnostics(n.putArray("errors"), e.errors());
        ObjectNode cleanup = n.putObject("cleanup");
        cleanup.put("status", e.cleanup().status().name());
        cleanup.put("descendantsSeen", e.cleanup().descendantsSeen());
        cleanup.put("detachedSeen", e.cleanup().detachedSeen());
        cleanup.put(
                "retainedStaging",
                e.cleanup().retainedStaging().map(p -> line(p.toString())).orElse(""));
        n.put("hardening", e.hardening().name());
        return n;
    }

    private static String exit(ProcessExit exit) {
        if (exit instanceof ProcessExit.Code c) {
            return "code " + c.code();
        }
        if (exit instanceof ProcessExit.Signal s) {
            return "signal " + s.signal();
        }
        return "not observed";
    }

    static void diagnostics(ArrayNode out, List<Diagnostic> diagnostics) {
        for (Diagnostic d : diagnostics) {
            ObjectNode o = out.addObject();
            o.put("code", d.code().name());
            o.put("severity", d.severity().name());
            o.put("location", line(d.location()));
            o.put("message", line(d.message()));
        }
    }

    static ObjectNode policy(PolicySnapshot p, boolean safeMode) {
        ObjectNode n = NODES.objectNode();
        n.put("mode", p.mode().name());
        n.put("safeMode", safeMode);
        diagnostics(n.putArray("problems"), p.problems());
        ArrayNode scopes = n.putArray("scopes");
        for (ScopeEntry e : p.scopes()) {
            ObjectNode o = scopes.addObject();
            o.put("revision", e.scope().revision().toString());
            o.put("agent", line(e.scope().agent().value()));
            workspace(o.putObject("workspace"), e.scope().workspace());
            o.put("timeoutCeilingMillis", e.scope().timeoutCeiling().millis());
            o.put("outputCeilingBytes", e.scope().outputCeiling().bytes());
            if (e.receipt().isPresent()) {
                ObjectNode receipt = o.putObject("receipt");
                receipt.put("id", e.receipt().get().id().toString());
                receipt.put("approvedAt", e.receipt().get().approvedAt().toString());
            }
        }
        return n;
    }

    static ObjectNode trust(TrustDecision d) {
        ObjectNode o = NODES.objectNode();
        o.put("id", d.scope().id().toString());
        o.put("agent", line(d.scope().agent().value()));
        o.put("revision", d.scope().revision().toString());
        if (d.scope() instanceof PromptSkillScope p) {
            o.put("kind", "prompt skill");
            o.put("skill", line(p.skill().value()));
        } else if (d.scope() instanceof ExecutionScope x) {
            o.put("kind", "trusted revision");
            o.put("skill", "");
            o.put("receipt", x.receiptId().toString());
        }
        o.put("status", d.status().name());
        o.put("sequence", d.sequence());
        o.put("decidedAt", d.decidedAt().toString());
        return o;
    }

    static ObjectNode audit(AuditStatus s) {
        ObjectNode o = NODES.objectNode();
        o.put("state", s.state().name());
        o.put("yieldsTrust", s.yieldsTrust());
        o.put("writable", s.writable());
        o.put("committedSequence", s.committedSequence());
        if (s.firstBadSequence().isPresent()) {
            o.put("firstBadSequence", s.firstBadSequence().getAsLong());
        } else {
            o.putNull("firstBadSequence");
        }
        diagnostics(o.putArray("diagnostics"), s.diagnostics());
        return o;
    }
}
