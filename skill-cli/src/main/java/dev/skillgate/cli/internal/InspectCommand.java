package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SchemaVerdict;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.InputType;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.ToolClass;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.ManifestVerdict;
import dev.skillgate.signature.SignatureStatement;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code skillgate inspect DIR [--json] [--allowed-signers FILE] [--namespace NS] [--profile P]}:
 * every verdict about one skill (SPEC §13): format, capture and revision, manifest, schemas,
 * execution availability and why, contract, signature. Inert: captures the bundle through the
 * bounded reader and runs nothing. Exit 0 when nothing was rejected ({@link Inspection#passes()}),
 * 1 otherwise (including an unusable allowed-signers file), 2 for a usage error.
 */
final class InspectCommand implements Command {
    @Override
    public String name() {
        return "inspect";
    }

    @Override
    public String summary() {
        return "show a skill's verdicts, revision, execution availability and signature (inert)";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate inspect DIR [--json] [--allowed-signers FILE] [--namespace NS]
                                             [--profile strict|reference]

                Captures the skill in DIR without running anything and reports, separately: the
                SKILL.md format verdict, the revision and captured files, the execution manifest and
                its schemas, whether execution is available and why not, the trust contract, and the
                publisher signature. Exit 0 when nothing was rejected, 1 otherwise, 2 usage error.

                  --allowed-signers FILE  verify the publisher signature against these keys
                                          (OpenSSH allowed_signers; without it: not checked)
                  --namespace NS          the catalog namespace identity.id must use
                  --profile P             SKILL.md validation profile (default strict)
                  --json                  print the documented JSON report (docs/cli.md)
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        Args parsed = Args.parse(args, Set.of("--json"), Set.of("--allowed-signers", "--namespace", "--profile"));
        if (parsed.positionals().size() != 1) {
            throw new UsageException("needs exactly one skill directory");
        }
        Path dir = ValidateCommand.skillDirectory(parsed.positionals().get(0));
        InspectOptions.Builder options = InspectOptions.builder();
        String profileName = parsed.value("--profile").orElse("strict");
        options.profile(ValidationProfile.find(profileName)
                .orElseThrow(() -> new UsageException(
                        "unknown profile '" + Args.printable(profileName) + "' (strict or reference)")));
        if (parsed.value("--namespace").isPresent()) {
            String ns = parsed.value("--namespace").get();
            if (!SkillName.isValid(ns)) {
                throw new UsageException("--namespace must be a skill-style name, not '" + Args.printable(ns) + "'");
            }
            options.namespace(ns);
        }
        if (parsed.value("--allowed-signers").isPresent()) {
            SshSignatures.Loaded loaded =
                    SshSignatures.load(parsed.value("--allowed-signers").get());
            if (loaded instanceof SshSignatures.Unusable unusable) {
                return unusableSigners(unusable, err);
            }
            options.signatureChecker(((SshSignatures.Usable) loaded).checker());
        }
        Inspection inspection = SkillInspector.inspect(dir, options.build());
        Schemas schemas = schemas(dir, inspection);
        if (parsed.has("--json")) {
            Map<String, Object> doc = json(inspection);
            @SuppressWarnings("unchecked")
            Map<String, Object> both = (Map<String, Object>) doc.get("schemas");
            schemas.input().ifPresent(j -> ((Map<String, Object>) both.get("input")).put("json", j));
            schemas.output().ifPresent(j -> ((Map<String, Object>) both.get("output")).put("json", j));
            JsonOut.print(out, doc);
        } else {
            text(inspection, schemas, out);
        }
        return inspection.passes() ? ExitCode.OK : ExitCode.INVALID;
    }

    /** Allowed signers that are missing (usage, 2) or malformed (invalid, 1). */
    static ExitCode unusableSigners(SshSignatures.Unusable unusable, PrintStream err) {
        err.println("skillgate: the allowed-signers file cannot be used:");
        for (Diagnostic d : unusable.diagnostics()) {
            err.println("  " + line(d));
        }
        return unusable.usage() ? ExitCode.USAGE : ExitCode.INVALID;
    }

    static String line(Diagnostic d) {
        return d.severity().name().toLowerCase(java.util.Locale.ROOT) + " "
                + d.code().name() + (d.location().isEmpty() ? "" : " at " + Args.safe(d.location())) + ": "
                + d.message();
    }

    /** The accepted schemas' JSON text, exactly as the gate compiled it; empty when not accepted. */
    private record Schemas(Optional<String> input, Optional<String> output) {}

    /**
     * The schemas of the revision the inspection reported (issue 18: inspect showed neither): read
     * from a second capture, used only when its revision is the inspected one.
     */
    private static Schemas schemas(Path dir, Inspection inspection) {
        if (inspection.revision().isEmpty()) {
            return new Schemas(Optional.empty(), Optional.empty());
        }
        CaptureOutcome outcome = SkillArtifact.capture(dir);
        if (outcome.artifact().isEmpty()) {
            return new Schemas(Optional.empty(), Optional.empty());
        }
        try (SkillArtifact a = outcome.artifact().get()) {
            if (!a.revision().equals(inspection.revision().get())) {
                return new Schemas(Optional.empty(), Optional.empty());
            }
            return new Schemas(
                    a.inputSchema().map(CompiledSchema::json), a.outputSchema().map(CompiledSchema::json));
        }
    }

    /** Built on first use: a command that prints no schema never loads Jackson (decision 0801). */
    private static final class Pretty {
        static final tools.jackson.databind.json.JsonMapper MAPPER = tools.jackson.databind.json.JsonMapper.builder()
                .enable(tools.jackson.databind.SerializationFeature.INDENT_OUTPUT)
                .build();
    }

    /** A schema's JSON indented for the terminal, every line escaped. */
    private static void printSchema(PrintStream out, String label, String json) {
        String shown;
        try {
            shown = Pretty.MAPPER.writeValueAsString(Pretty.MAPPER.readTree(json));
        } catch (RuntimeException e) {
            shown = json;
        }
        out.println("  " + label + ":");
        shown.lines().forEach(l -> out.println("    " + Args.safe(l)));
    }

    private static void text(Inspection i, Schemas schemas, PrintStream out) {
        out.println("skill: " + Args.safe(i.path().toString()));
        out.println("revision: " + i.revision().map(Object::toString).orElse("none (not captured)"));
        i.captureProblem().ifPresent(d -> out.println("  " + line(d)));
        out.println("files: " + i.files().size() + (i.files().isEmpty() ? "" : ", " + total(i.files()) + " bytes"));
        for (CapturedFile f : i.files()) {
            out.println("  " + Args.safe(f.path().value()) + "  " + f.size() + "  " + f.sha256());
        }
        ValidationReport format = i.format();
        out.println("format: portable " + yes(format.portable()) + ", loadable " + yes(format.loadable()));
        for (Diagnostic d : format.diagnostics()) {
            out.println("  " + line(d));
        }
        out.println(
                "manifest: " + i.manifest().map(InspectCommand::manifestLine).orElse("not checked"));
        i.manifest().ifPresent(m -> {
            if (m instanceof ManifestVerdict.Rejected r) {
                r.diagnostics().forEach(d -> out.println("  " + line(d)));
            }
        });
        out.println("schemas: input " + status(i.inputSchema()) + ", output " + status(i.outputSchema()));
        i.inputSchema().problems().forEach(d -> out.println("  " + line(d)));
        i.outputSchema().problems().forEach(d -> out.println("  " + line(d)));
        schemas.input().ifPresent(j -> printSchema(out, "input schema", j));
        schemas.output().ifPresent(j -> printSchema(out, "output schema", j));
        out.println("execution: " + (i.executionAvailable() ? "available (still needs consent)" : "unavailable"));
        for (Diagnostic d : i.executionReasons()) {
            out.println("  " + line(d));
        }
        out.println(
                "contract: " + i.contract().map(InspectCommand::contractLine).orElse("not checked"));
        i.contract().ifPresent(c -> c.problems().forEach(d -> out.println("  " + line(d))));
        i.contractCheck().forEach(d -> out.println("  " + line(d)));
        out.println("signature: " + signatureLine(i.signature()));
        out.println("Skillgate is not a sandbox: a consented script runs with your user's files and network.");
    }

    private static long total(List<CapturedFile> files) {
        return files.stream().mapToLong(CapturedFile::size).sum();
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    private static String status(SchemaVerdict v) {
        return v.status().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static String manifestLine(ManifestVerdict m) {
        if (m instanceof ManifestVerdict.Accepted a) {
            ExecutionManifest x = a.manifest();
            return "accepted (entrypoint " + Args.safe(x.entrypoint().value()) + ", "
                    + x.files().size()
                    + (x.files().size() == 1 ? " file" : " files") + ", timeout "
                    + x.timeout().millis() + " ms, max output "
                    + x.maxOutputBytes().bytes()
                    + " bytes)";
        }
        return m instanceof ManifestVerdict.Rejected ? "rejected" : "absent (prompt-only)";
    }

    private static String contractLine(ContractVerdict c) {
        if (c instanceof ContractVerdict.Accepted a) {
            SkillContract x = a.contract();
            return "accepted " + Args.safe(x.identity().id()) + " "
                    + x.identity().version() + ", origin "
                    + x.origin().type().wireName()
                    + x.origin().publisher().map(p -> " (" + Args.safe(p) + ")").orElse("") + ", permission "
                    + x.permissionMode().wireName() + ", side effects "
                    + x.sideEffectClass().wireName()
                    + ", contract " + a.sha256();
        }
        return c instanceof ContractVerdict.Rejected ? "rejected" : "absent";
    }

    private static String signatureLine(SignatureVerdict s) {
        if (s instanceof SignatureVerdict.Verified v) {
            return "verified (key " + v.keyFingerprint() + ", principals " + Args.safe(String.join(",", v.principals()))
                    + ")";
        }
        if (s instanceof SignatureVerdict.Rejected r) {
            return "rejected\n  " + line(r.diagnostic());
        }
        return "not checked (" + ((SignatureVerdict.NotChecked) s).reason() + ")";
    }

    /** The {@code skillgate.inspect/1} document (docs/cli.md). */
    static Map<String, Object> json(Inspection i) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", "skillgate.inspect/1");
        doc.put("path", i.path().toString());
        doc.put("passes", i.passes());
        doc.put("revision", i.revision().map(Object::toString).orElse(null));
        Map<String, Object> capture = new LinkedHashMap<>();
        capture.put("captured", i.captureProblem().isEmpty());
        capture.put("problem", i.captureProblem().map(JsonOut::diagnostic).orElse(null));
        List<Map<String, Object>> files = new ArrayList<>();
        for (CapturedFile f : i.files()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", f.path().value());
            m.put("size", f.size());
            m.put("sha256", f.sha256().toString());
            files.add(m);
        }
        capture.put("files", files);
        doc.put("capture", capture);
        Map<String, Object> format = new LinkedHashMap<>();
        format.put("profile", i.format().profile().cliName());
        format.put("portable", i.format().portable());
        format.put("loadable", i.format().loadable());
        format.put("name", i.format().skillName().orElse(null));
        format.put("diagnostics", JsonOut.diagnostics(i.format().diagnostics()));
        doc.put("format", format);
        doc.put("manifest", manifest(i));
        Map<String, Object> schemas = new LinkedHashMap<>();
        schemas.put("input", schema(i.inputSchema()));
        schemas.put("output", schema(i.outputSchema()));
        doc.put("schemas", schemas);
        Map<String, Object> execution = new LinkedHashMap<>();
        execution.put("available", i.executionAvailable());
        execution.put("reasons", JsonOut.diagnostics(i.executionReasons()));
        doc.put("execution", execution);
        doc.put("contract", contract(i));
        doc.put("signature", signature(i.signature()));
        return doc;
    }

    private static Map<String, Object> manifest(Inspection i) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (i.manifest().isEmpty()) {
            m.put("status", "not-checked");
            m.put("diagnostics", List.of());
            return m;
        }
        ManifestVerdict v = i.manifest().get();
        m.put(
                "status",
                v instanceof ManifestVerdict.Accepted
                        ? "accepted"
                        : v instanceof ManifestVerdict.Rejected ? "rejected" : "absent");
        m.put(
                "diagnostics",
                JsonOut.diagnostics(v instanceof ManifestVerdict.Rejected r ? r.diagnostics() : List.of()));
        if (v instanceof ManifestVerdict.Accepted a) {
            ExecutionManifest x = a.manifest();
            m.put("entrypoint", x.entrypoint().value());
            m.put("files", x.files().stream().map(p -> p.value()).toList());
            m.put("timeoutMs", x.timeout().millis());
            m.put("maxOutputBytes", x.maxOutputBytes().bytes());
        }
        return m;
    }

    private static Map<String, Object> schema(SchemaVerdict v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", status(v));
        m.put("diagnostics", JsonOut.diagnostics(v.problems()));
        return m;
    }

    private static Map<String, Object> contract(Inspection i) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (i.contract().isEmpty()) {
            m.put("status", "not-checked");
            m.put("diagnostics", List.of());
            m.put("check", List.of());
            return m;
        }
        ContractVerdict v = i.contract().get();
        m.put(
                "status",
                v instanceof ContractVerdict.Accepted
                        ? "accepted"
                        : v instanceof ContractVerdict.Rejected ? "rejected" : "absent");
        m.put("diagnostics", JsonOut.diagnostics(v.problems()));
        m.put("check", JsonOut.diagnostics(i.contractCheck()));
        if (v instanceof ContractVerdict.Accepted a) {
            SkillContract c = a.contract();
            m.put("sha256", a.sha256().toString());
            m.put("id", c.identity().id());
            m.put("version", c.identity().version().toString());
            m.put("origin", c.origin().type().wireName());
            m.put("publisher", c.origin().publisher().orElse(null));
            List<Map<String, Object>> agents = new ArrayList<>();
            for (AgentRequirement r : c.agents()) {
                Map<String, Object> a2 = new LinkedHashMap<>();
                a2.put("kind", r.kind());
                a2.put("minVersion", r.minVersion().toString());
                a2.put("maxVersion", r.maxVersion().toString());
                agents.add(a2);
            }
            m.put("agents", agents);
            m.put(
                    "inputTypes",
                    c.inputTypes().stream().sorted().map(InputType::wireName).toList());
            m.put("tools", c.tools().stream().sorted().map(ToolClass::wireName).toList());
            m.put("credentials", c.credentials());
            m.put("permissionMode", c.permissionMode().wireName());
            m.put(
                    "networkDestinations",
                    c.networkDestinations().stream()
                            .map(NetworkDestination::origin)
                            .toList());
            m.put("sideEffectClass", c.sideEffectClass().wireName());
            m.put("statement", new SignatureStatement(a.sha256(), i.revision().orElseThrow()).toText());
        }
        return m;
    }

    static Map<String, Object> signature(SignatureVerdict s) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (s instanceof SignatureVerdict.Verified v) {
            m.put("status", "verified");
            m.put("keyFingerprint", v.keyFingerprint());
            m.put("principals", v.principals());
        } else if (s instanceof SignatureVerdict.Rejected r) {
            m.put("status", "rejected");
            m.put("diagnostic", JsonOut.diagnostic(r.diagnostic()));
        } else {
            m.put("status", "not-checked");
            m.put("reason", ((SignatureVerdict.NotChecked) s).reason());
        }
        return m;
    }
}
