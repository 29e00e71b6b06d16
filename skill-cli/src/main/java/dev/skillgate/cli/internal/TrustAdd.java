package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Revision;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code skillgate trust add SKILL_DIR --data-dir DIR}: the local user's explicit, audited act of
 * trusting one exact revision for the CLI's agent in one workspace (decision 0640). It captures the
 * skill, shows the request — the revision, every file with its SHA-256, the entrypoint, the
 * workspace, the agent and the ceilings (the manifest's own timeout and output limit) and the warning
 * that a trusted script still runs as you — and asks; only {@code y}/{@code yes} (or {@code
 * --approve} naming exactly the captured revision) records it through {@link
 * SkillGateAdmin#trustRevision}, which writes the approval and its receipt to the audit log. Runs
 * nothing.
 */
final class TrustAdd {
    private TrustAdd() {}

    static ExitCode run(Args args, String skillArg, InputStream in, PrintStream out, PrintStream err)
            throws UsageException {
        boolean json = args.has("--json");
        if (args.has("--scope")) {
            throw new UsageException("--scope applies to revoke only");
        }
        Path dataDir = CommandLineFiles.existingDirectory(
                "--data-dir", args.value("--data-dir").orElseThrow(() -> new UsageException("--data-dir is required")));
        Path skillDir = CommandLineFiles.existingDirectory("skill directory", skillArg);
        Path workspace = CommandLineFiles.existingDirectory(
                "--workspace", args.value("--workspace").orElse("."));
        Optional<Revision> approve = args.revision("--approve");
        PrintStream talk = json ? err : out;
        Optional<Diagnostic> unsafe = DataDirectories.unsafe(dataDir);
        if (unsafe.isPresent()) {
            return report(json, out, err, ExitCode.REFUSED, unsafe.get(), Optional.empty());
        }
        CaptureOutcome outcome = SkillArtifact.capture(skillDir);
        if (outcome instanceof CaptureOutcome.Failed failed) {
            return report(json, out, err, ExitCode.INVALID, failed.diagnostic(), Optional.empty());
        }
        Revision revision;
        ExecutionManifest manifest;
        try (SkillArtifact artifact = outcome.artifact().orElseThrow()) {
            if (artifact.manifest().isEmpty() || !artifact.executionAvailable()) {
                Diagnostic why = artifact.executionProblems().isEmpty()
                        ? Diagnostic.error(ErrorCode.EXECUTION_UNAVAILABLE, "", "the skill has no runnable script")
                        : artifact.executionProblems().get(0);
                return report(json, out, err, ExitCode.INVALID, why, Optional.empty());
            }
            revision = artifact.revision();
            manifest = artifact.manifest().get();
            talk.println("Trust this exact revision, so that later runs are not asked?");
            talk.println(
                    "  skill: " + Args.safe(artifact.directoryName()) + " (" + Args.path(skillDir.toString()) + ")");
            talk.println("  revision: " + revision);
            talk.println("  files:");
            for (CapturedFile f : artifact.files()) {
                talk.println("    " + Args.safe(f.path().value()) + "  " + f.size() + "  " + f.sha256());
            }
            talk.println("  entrypoint: " + Args.safe(manifest.entrypoint().value()));
            talk.println("  agent: " + RunCommand.AGENT.value());
            talk.println("  workspace: " + Args.path(workspace.toString()));
            talk.println("  ceilings: timeout at most " + manifest.timeout().millis() + " ms, output at most "
                    + manifest.maxOutputBytes().bytes() + " bytes");
            talk.println("  any input is accepted without asking; a changed byte is a new revision and is asked again");
            talk.println("  Skillgate is not a sandbox: a trusted script runs as you, with your files and network.");
        }
        boolean yes;
        if (approve.isPresent()) {
            yes = approve.get().equals(revision);
            talk.println(
                    yes
                            ? "--approve names the captured revision: answering yes"
                            : "--approve names " + approve.get() + ", captured " + revision + ": answering no");
        } else {
            talk.print("Trust it? [y/N] ");
            talk.flush();
            String answer;
            try {
                String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
                answer = line == null ? "" : line.strip().toLowerCase(Locale.ROOT);
            } catch (IOException e) {
                answer = "";
            }
            yes = answer.equals("y") || answer.equals("yes");
            talk.println(yes ? "trusted by you" : "not trusted");
        }
        if (!yes) {
            return report(
                    json,
                    out,
                    err,
                    ExitCode.REFUSED,
                    Diagnostic.error(ErrorCode.CONSENT_DENIED, "", "not trusted: nothing was recorded"),
                    Optional.empty());
        }
        ConsentResult<PolicyChange> result;
        try (SkillGateAdmin admin = SkillGateAdmin.open(dataDir)) {
            result = admin.trustRevision(
                    revision, RunCommand.AGENT, workspace, manifest.timeout(), manifest.maxOutputBytes());
        } catch (UncheckedIOException | IllegalStateException e) {
            return report(
                    json,
                    out,
                    err,
                    ExitCode.INVALID,
                    Diagnostic.error(
                            ErrorCode.DATA_DIRECTORY_UNUSABLE,
                            dataDir.toString(),
                            "the data directory cannot be used (" + e.getClass().getSimpleName() + ")"),
                    Optional.empty());
        }
        if (result.failure().isPresent()) {
            Diagnostic d = result.failure().get();
            ExitCode code = d.code() == ErrorCode.AUDIT_LOCKED || d.code() == ErrorCode.AUDIT_DISABLED
                    ? ExitCode.REFUSED
                    : ExitCode.INVALID;
            return report(json, out, err, code, d, Optional.empty());
        }
        Optional<ScopeEntry> minted = result.orElseThrow().minted().stream().findFirst();
        String receipt =
                minted.flatMap(ScopeEntry::receipt).map(r -> r.id().toString()).orElse("none");
        return report(
                json,
                out,
                err,
                ExitCode.OK,
                Diagnostic.info(
                        ErrorCode.TRUST_RECORDED,
                        "",
                        "trusted revision " + revision + " for " + RunCommand.AGENT.value() + " in "
                                + Args.path(workspace.toString()) + " (receipt " + receipt
                                + "); see or revoke it with: skillgate trust list --data-dir "
                                + Args.path(dataDir.toString())),
                Optional.of(revision));
    }

    private static ExitCode report(
            boolean json, PrintStream out, PrintStream err, ExitCode code, Diagnostic d, Optional<Revision> revision) {
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.trust-add/1");
            doc.put("trusted", code == ExitCode.OK);
            doc.put("revision", revision.map(Revision::toString).orElse(null));
            doc.put("diagnostics", JsonOut.diagnostics(List.of(d)));
            JsonOut.print(out, doc);
        } else if (code == ExitCode.OK) {
            out.println(d.message());
        } else {
            err.println("skillgate trust add: " + d.code() + ": " + d.message());
        }
        return code;
    }
}
