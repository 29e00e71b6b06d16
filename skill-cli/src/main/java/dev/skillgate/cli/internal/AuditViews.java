package dev.skillgate.cli.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Shared pieces of the {@code audit} and {@code trust} commands: where the log lives under a data
 * directory, and how statuses, scopes and records print. Nothing printed holds a source path or a
 * secret: scopes are agent ids, skill names and digests.
 */
final class AuditViews {
    /** The audit log's directory inside a data directory. */
    static final String AUDIT_DIR = "audit";

    /** How long a command waits for a large log to verify. */
    static final Duration VERIFY_WAIT = Duration.ofSeconds(120);

    /** How long {@code open} itself waits (the library's maximum); the rest is {@code awaitReady}. */
    static final Duration OPEN_WAIT = Duration.ofSeconds(60);

    private AuditViews() {}

    static Path auditDir(Args args) throws UsageException {
        String dataDir = args.value("--data-dir").orElseThrow(() -> new UsageException("--data-dir is required"));
        // A data directory that does not exist is a usage error, not an empty log: a mistyped path
        // must never read as "verified".
        return CommandLineFiles.existingDirectory("--data-dir", dataDir).resolve(AUDIT_DIR);
    }

    /**
     * Why this user cannot look at the audit directory, if it cannot. An absent directory is an
     * empty log; a directory that cannot even be looked up (a data directory of another user) must
     * never read as an empty, verified one.
     */
    static Optional<Diagnostic> unreadable(Path auditDir) {
        try {
            Files.readAttributes(auditDir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            String reason = e instanceof AccessDeniedException
                    ? "permission denied"
                    : e.getClass().getSimpleName();
            return Optional.of(Diagnostic.error(
                    ErrorCode.READ_IO,
                    AUDIT_DIR,
                    "the audit log cannot be looked at by this user (" + reason + "); nothing was verified"));
        }
    }

    /** Reports an unreadable audit directory: exit 1, and nothing is claimed about the log. */
    static ExitCode refuseUnreadable(Diagnostic why, String schema, boolean json, PrintStream out, PrintStream err) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", schema);
            if (schema.equals("skillgate.audit-verify/1")) {
                doc.put("verified", false);
            }
            doc.put("diagnostics", JsonOut.diagnostics(java.util.List.of(why)));
            JsonOut.print(out, doc);
        } else {
            err.println("skillgate: " + why.code() + ": " + why.message());
        }
        return ExitCode.INVALID;
    }

    static AuditLog openReadOnly(Path auditDir) {
        AuditLog log = AuditLog.open(AuditLogOptions.builder(auditDir)
                .readOnly(true)
                .openWait(OPEN_WAIT)
                .build());
        log.awaitReady(VERIFY_WAIT);
        return log;
    }

    static Map<String, Object> status(AuditStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", s.state().name());
        m.put("committedSequence", s.committedSequence());
        s.logId().ifPresent(id -> m.put("logId", id));
        s.firstBadSequence().ifPresent(n -> m.put("firstBadSequence", n));
        m.put("diagnostics", JsonOut.diagnostics(s.diagnostics()));
        return m;
    }

    static void printStatus(PrintStream out, AuditStatus s) {
        out.println("state: " + s.state());
        out.println("committed records: " + s.committedSequence()
                + s.logId().map(id -> " (log " + id + ")").orElse(""));
        s.firstBadSequence().ifPresent(n -> out.println("first bad record: seq " + n));
        for (Diagnostic d : s.diagnostics()) {
            out.println("  " + d);
        }
    }

    static Map<String, Object> scope(TrustScope scope) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", scope.id().toString());
        if (scope instanceof PromptSkillScope p) {
            m.put("kind", "prompt-skill");
            m.put("agent", p.agent().value());
            m.put("skill", p.skill().value());
            m.put("contract", p.contract().map(Sha256Digest::toString).orElse("none"));
            m.put("revision", p.revision().toString());
        } else if (scope instanceof ExecutionScope e) {
            m.put("kind", "execution");
            m.put("agent", e.agent().value());
            m.put("revision", e.revision().toString());
            m.put("workspace", e.workspace().toString());
            m.put("timeoutCeilingMillis", e.timeoutCeiling().millis());
            m.put("outputCeilingBytes", e.outputCeiling().bytes());
            m.put("receiptId", e.receiptId().toString());
            m.put("receiptIssuedAt", e.receiptIssuedAt().toString());
        }
        return m;
    }

    static String scopeLine(TrustScope scope) {
        if (scope instanceof PromptSkillScope p) {
            return "prompt-skill " + p.skill().value() + " for agent "
                    + p.agent().value() + ", revision " + p.revision() + ", contract "
                    + p.contract().map(Sha256Digest::toString).orElse("none");
        }
        ExecutionScope e = (ExecutionScope) scope;
        return "execution receipt " + e.receiptId() + " for agent " + e.agent().value() + ", revision " + e.revision()
                + ", workspace " + e.workspace() + ", timeout <= "
                + e.timeoutCeiling().millis() + " ms, output <= "
                + e.outputCeiling().bytes() + " B";
    }

    static Map<String, Object> decision(TrustDecision d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", d.status().name());
        m.put("sequence", d.sequence());
        m.put("decidedAt", d.decidedAt().toString());
        m.put("scope", scope(d.scope()));
        return m;
    }

    static Map<String, Object> record(AuditRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sequence", r.sequence());
        m.put("recordedAt", r.recordedAt().toString());
        m.put("clockRegression", r.clockRegression());
        m.put("chainHash", r.chainHash().toString());
        AuditEvent e = r.event();
        if (e instanceof AuditEvent.Approved a) {
            m.put("event", "approve");
            m.put("scope", scope(a.scope()));
        } else if (e instanceof AuditEvent.Revoked v) {
            m.put("event", "revoke");
            m.put("scope", scope(v.scope()));
        } else if (e instanceof AuditEvent.Consumed c) {
            m.put("event", "consume");
            m.put("run", c.run().value());
            m.put("agent", c.agent().value());
            m.put("revision", c.revision().toString());
            m.put("binding", c.binding().toString());
        } else if (e instanceof AuditEvent.PolicyChanged p) {
            m.put("event", "policy-change");
            m.put("mode", p.mode());
            m.put("policy", p.policy().toString());
        } else if (e instanceof AuditEvent.Repaired p) {
            m.put("event", "repair");
            m.put("reason", p.reason());
            m.put("cause", p.cause().name());
            p.firstBadSequence().ifPresent(n -> m.put("firstBadSequence", n));
            p.previousLogId().ifPresent(id -> m.put("previousLogId", id));
            p.previousLog().ifPresent(d -> m.put("previousLog", d.toString()));
            p.previousHead().ifPresent(d -> m.put("previousHead", d.toString()));
            m.put("evidence", p.evidence());
        } else if (e instanceof AuditEvent.Settled st) {
            m.put("event", "settle");
            m.put("run", st.run().value());
            m.put("agent", st.agent().value());
            m.put("revision", st.revision().toString());
            m.put("authority", st.authority().name());
            m.put("status", st.status().name());
            m.put("cleanup", st.cleanup().name());
            m.put("layer", st.layer().name());
            m.put("errors", st.errors().stream().map(Enum::name).toList());
            m.put("earlyDelivery", st.earlyDelivery());
            st.runtimeSha256().ifPresent(d -> m.put("runtime", d.toString()));
        } else if (e instanceof AuditEvent.Resolved rs) {
            m.put("event", "resolve");
            m.put("run", rs.run().value());
            rs.revision().ifPresent(rev -> m.put("revision", rev.toString()));
            m.put("attempt", rs.attempt());
            m.put("stager", process(rs.stager()));
            rs.supervisor().ifPresent(p -> m.put("supervisor", process(p)));
        } else if (e instanceof AuditEvent.PlanApproved pa) {
            m.put("event", "plan-approve");
            m.put("run", pa.run().value());
            m.put("agent", pa.agent().value());
            m.put("workspace", pa.workspace().toString());
            m.put("plan", pa.plan().toString());
            m.put("steps", pa.steps());
        } else if (e instanceof AuditEvent.PlanStepConsumed ps) {
            m.put("event", "plan-step");
            m.put("run", ps.run().value());
            m.put("agent", ps.agent().value());
            m.put("revision", ps.revision().toString());
            m.put("binding", ps.binding().toString());
            m.put("plan", ps.plan().toString());
            m.put("step", ps.step());
        } else if (e instanceof AuditEvent.WorkflowChanged wc) {
            m.put("event", "workflow");
            m.put("action", wc.action().name());
            m.put("workflow", wc.workflow());
            m.put("run", wc.run().value());
            m.put("detail", wc.detail());
        } else if (e instanceof AuditEvent.LateAnswer la) {
            m.put("event", "late-answer");
            m.put("request", la.request().name());
            m.put("id", la.id());
            m.put("agent", la.agent().value());
            la.run().ifPresent(run -> m.put("run", run.value()));
            m.put("skill", la.skill().value());
            m.put("revision", la.revision().toString());
            m.put("approved", la.approved());
            m.put("afterMillis", la.afterMillis());
        }
        return m;
    }

    private static Map<String, Object> process(AuditEvent.DeadProcess p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", p.pid());
        m.put("startToken", p.startToken());
        return m;
    }

    static String recordLine(AuditRecord r) {
        AuditEvent e = r.event();
        String what;
        if (e instanceof AuditEvent.Approved a) {
            what = "approve " + scopeLine(a.scope()) + " [scope " + a.scope().id() + "]";
        } else if (e instanceof AuditEvent.Revoked v) {
            what = "revoke  " + scopeLine(v.scope()) + " [scope " + v.scope().id() + "]";
        } else if (e instanceof AuditEvent.Consumed c) {
            what = "consume run " + c.run().value() + " agent " + c.agent().value() + " revision " + c.revision()
                    + " binding " + c.binding();
        } else if (e instanceof AuditEvent.PolicyChanged p) {
            what = "policy  " + p.mode() + " " + p.policy();
        } else if (e instanceof AuditEvent.Repaired p) {
            what = "repair  (" + p.cause() + ") \"" + Args.printable(p.reason()) + "\" evidence " + p.evidence();
        } else if (e instanceof AuditEvent.Settled st) {
            what = "settle  run " + st.run().value() + " agent " + st.agent().value() + " revision " + st.revision()
                    + " " + st.status() + " cleanup " + st.cleanup() + " layer " + st.layer() + " via "
                    + st.authority() + (st.errors().isEmpty() ? "" : " codes " + st.errors())
                    + (st.earlyDelivery() ? " (caller got an earlier outcome)" : "")
                    + st.runtimeSha256().map(d -> " runtime " + d).orElse("");
        } else if (e instanceof AuditEvent.Resolved rs) {
            what = "resolve run " + rs.run().value() + " attempt " + rs.attempt() + " revision "
                    + rs.revision().map(Object::toString).orElse("unknown") + " stager "
                    + rs.stager().pid() + "/"
                    + rs.stager().startToken() + " dead"
                    + rs.supervisor()
                            .map(p -> ", supervisor " + p.pid() + "/" + p.startToken() + " dead")
                            .orElse("");
        } else if (e instanceof AuditEvent.PlanApproved pa) {
            what = "plan    run " + pa.run().value() + " agent " + pa.agent().value() + " " + pa.steps()
                    + " steps plan " + pa.plan() + " workspace " + pa.workspace();
        } else if (e instanceof AuditEvent.WorkflowChanged wc) {
            what = "workflow " + wc.action() + " " + wc.workflow() + " run "
                    + wc.run().value() + " " + Args.printable(wc.detail());
        } else if (e instanceof AuditEvent.LateAnswer la) {
            what = "late    " + la.request() + " " + la.id() + " agent "
                    + la.agent().value()
                    + la.run().map(run -> " run " + run.value()).orElse("") + " skill "
                    + la.skill().value()
                    + " revision " + la.revision() + " " + (la.approved() ? "approval" : "denial") + " after "
                    + la.afterMillis() + " ms, ignored";
        } else {
            AuditEvent.PlanStepConsumed ps = (AuditEvent.PlanStepConsumed) e;
            what = "step    run " + ps.run().value() + " agent " + ps.agent().value() + " step " + ps.step()
                    + " of plan " + ps.plan() + " revision " + ps.revision() + " binding " + ps.binding();
        }
        return r.sequence() + "  " + r.recordedAt() + (r.clockRegression() ? " (clock went back)" : "") + "  " + what;
    }
}
