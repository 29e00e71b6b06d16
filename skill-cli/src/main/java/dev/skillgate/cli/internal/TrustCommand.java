package dev.skillgate.cli.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate trust list|revoke}: the trust decisions recorded in {@code DATA_DIR/audit}.
 * {@code list} is read-only; {@code revoke} appends a revocation and needs the writer's lock, so it
 * is refused while a host holds the log open.
 */
final class TrustCommand implements Command, Cli.NeedsInput {
    @Override
    public String name() {
        return "trust";
    }

    @Override
    public String summary() {
        return "list trust decisions, trust one exact revision (add), or revoke one";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate trust list --data-dir DIR [--json]
                       skillgate trust add SKILL_DIR --data-dir DIR [--workspace W] [--approve sha256:REV] [--json]
                       skillgate trust revoke --data-dir DIR --scope SCOPE_ID [--json]

                list    prints the latest decision on every scope in DIR/audit: TRUSTED, REVOKED, or
                        SUSPENDED (approved, but the log is disabled and trusts nothing).
                add     shows the exact request (revision, files and digests, workspace, agent
                        skillgate-cli, the manifest's timeout and output limit as ceilings) and asks;
                        yes records a trusted-revision receipt in DIR's audit log, so later runs of
                        exactly this revision in W (default: the current directory) are not asked.
                        --approve answers yes only for that revision.
                revoke  appends a revocation of the scope with id SCOPE_ID (sha256:..., as listed).
                        Trust is not a sandbox: a trusted skill still runs with your user's access.
                exit codes: 0 ok (or already revoked), 1 not found / disabled log / I/O fault, 2 usage,
                            3 refused (the log is held by another process, or disabled)
                """;
    }

    @Override
    public ExitCode run(List<String> argv, PrintStream out, PrintStream err) throws UsageException {
        return run(argv, System.in, RawArguments.none(), out, err);
    }

    @Override
    public ExitCode run(List<String> argv, java.io.InputStream in, RawArguments raw, PrintStream out, PrintStream err)
            throws UsageException {
        Args args = Args.parse(argv, Set.of("--json"), Set.of("--data-dir", "--scope", "--workspace", "--approve"));
        List<String> positionals = args.positionals();
        if (!positionals.isEmpty() && positionals.get(0).equals("add")) {
            if (positionals.size() != 2) {
                throw new UsageException("trust add needs exactly one skill directory");
            }
            return TrustAdd.run(args, positionals.get(1), in, out, err);
        }
        if (args.has("--workspace") || args.has("--approve")) {
            throw new UsageException("--workspace and --approve apply to add only");
        }
        if (positionals.size() != 1) {
            throw new UsageException("expected one of: list, add, revoke");
        }
        Path dir = AuditViews.auditDir(args);
        boolean json = args.has("--json");
        return switch (positionals.get(0)) {
            case "list" -> {
                if (args.has("--scope")) {
                    throw new UsageException("--scope applies to revoke only");
                }
                yield list(dir, json, out, err);
            }
            case "revoke" -> {
                String text = args.value("--scope").orElseThrow(() -> new UsageException("--scope is required"));
                Sha256Digest id;
                try {
                    id = Sha256Digest.parse(text);
                } catch (InvalidValueException e) {
                    throw new UsageException("--scope must be a scope id: sha256: and 64 lowercase hex digits");
                }
                yield revoke(dir, id, json, out, err);
            }
            default -> throw new UsageException("unknown subcommand '" + Args.printable(positionals.get(0)) + "'");
        };
    }

    private static ExitCode list(Path dir, boolean json, PrintStream out, PrintStream err) {
        Optional<Diagnostic> unreadable = AuditViews.unreadable(dir);
        if (unreadable.isPresent()) {
            return AuditViews.refuseUnreadable(unreadable.get(), "skillgate.trust-list/1", json, out, err);
        }
        try (AuditLog log = AuditViews.openReadOnly(dir)) {
            AuditStatus status = log.status();
            List<TrustDecision> decisions = log.list();
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("schema", "skillgate.trust-list/1");
                doc.putAll(AuditViews.status(status));
                doc.put(
                        "decisions",
                        decisions.stream().map(AuditViews::decision).toList());
                JsonOut.print(out, doc);
            } else {
                if (decisions.isEmpty()) {
                    out.println("no trust decisions recorded");
                }
                for (TrustDecision d : decisions) {
                    out.println(d.status() + "  " + d.scope().id() + "  seq " + d.sequence() + "  " + d.decidedAt());
                    out.println("    " + AuditViews.scopeLine(d.scope()));
                }
                if (status.state() != AuditState.OK) {
                    AuditViews.printStatus(out, status);
                }
            }
            if (status.state() == AuditState.DISABLED) {
                err.println("skillgate trust: the log is disabled; no decision is in effect until an operator repair");
                return ExitCode.INVALID;
            }
            return ExitCode.OK;
        }
    }

    private static ExitCode revoke(Path dir, Sha256Digest id, boolean json, PrintStream out, PrintStream err) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return report(
                    json,
                    out,
                    err,
                    ExitCode.INVALID,
                    Diagnostic.error(ErrorCode.TRUST_NOT_FOUND, "", "no audit log exists"),
                    0);
        }
        try (AuditLog log = AuditLog.open(
                AuditLogOptions.builder(dir).openWait(AuditViews.OPEN_WAIT).build())) {
            AuditStatus status = log.awaitReady(AuditViews.VERIFY_WAIT);
            if (status.state() == AuditState.DISABLED) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.REFUSED,
                        Diagnostic.error(
                                ErrorCode.AUDIT_DISABLED,
                                "",
                                "the log is disabled; nothing is trusted, so there is nothing to revoke"),
                        0);
            }
            if (!status.writable()) {
                Diagnostic why = status.diagnostics().stream()
                        .filter(d -> d.code() == ErrorCode.AUDIT_LOCKED || d.code() == ErrorCode.AUDIT_IO)
                        .findFirst()
                        .orElse(Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "the log cannot be written"));
                return report(
                        json,
                        out,
                        err,
                        ExitCode.REFUSED,
                        Diagnostic.error(
                                why.code(),
                                why.location(),
                                why.message() + "; revoke through the running host instead"),
                        0);
            }
            Optional<TrustDecision> decision =
                    log.list().stream().filter(d -> d.scope().id().equals(id)).findFirst();
            if (decision.isEmpty()) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.INVALID,
                        Diagnostic.error(ErrorCode.TRUST_NOT_FOUND, "", "no decision is recorded for scope " + id),
                        0);
            }
            AppendResult r = log.revoke(decision.get().scope());
            if (r instanceof AppendResult.Committed c) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.OK,
                        Diagnostic.info(ErrorCode.TRUST_REVOKED, "", "revoked scope " + id + " at seq " + c.sequence()),
                        c.sequence());
            }
            Diagnostic reason =
                    r instanceof AppendResult.Refused refused ? refused.reason() : ((AppendResult.Failed) r).reason();
            if (reason.code() == ErrorCode.TRUST_REVOKED) {
                return report(
                        json,
                        out,
                        err,
                        ExitCode.OK,
                        Diagnostic.info(ErrorCode.TRUST_REVOKED, "", "scope " + id + " was already revoked"),
                        0);
            }
            return report(
                    json, out, err, r instanceof AppendResult.Failed ? ExitCode.INVALID : ExitCode.REFUSED, reason, 0);
        }
    }

    private static ExitCode report(
            boolean json, PrintStream out, PrintStream err, ExitCode code, Diagnostic d, long seq) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.trust-revoke/1");
            doc.put("revoked", code == ExitCode.OK);
            if (seq > 0) {
                doc.put("sequence", seq);
            }
            doc.put("diagnostics", JsonOut.diagnostics(List.of(d)));
            JsonOut.print(out, doc);
        } else if (code == ExitCode.OK) {
            out.println(d.message());
        } else {
            err.println("skillgate trust: " + d.code() + ": " + d.message());
        }
        return code;
    }
}
