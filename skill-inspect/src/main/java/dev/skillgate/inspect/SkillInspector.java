package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.Inspector;
import dev.skillgate.inspect.shared.ContractCheck;
import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.SkillContract;
import dev.skillgate.protocol.ManifestVerdict;
import dev.skillgate.protocol.SchemaRole;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Inspects one skill directory inertly and reports every verdict in one {@link Inspection} (SPEC
 * §13's {@code skillgate inspect}).
 *
 * <p>It captures the bundle ({@link SkillArtifact#capture}), validates the captured {@code
 * SKILL.md}, takes the manifest verdict the capture computed, parses the contract ({@link
 * ContractParser}, or a configured {@link ContractDialect} for its record type) and checks it ({@link ContractCheck}) against the configured agent context, and
 * verifies the publisher signature through the configured {@link SignatureChecker}, reading {@value
 * #SIGNATURE_FILE_NAME} (at most {@value #MAX_SIGNATURE_FILE_BYTES} bytes) through the bounded
 * reader. The capture is disposed of before returning. Reading never executes, imports or installs
 * anything; no process is started. Never throws for bundle content.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillInspector {
    /** The publisher signature file next to {@code skill.contract.json}; never captured. */
    public static final String SIGNATURE_FILE_NAME = Capturer.SIGNATURE_FILE_NAME;

    /** Largest signature file read. */
    public static final int MAX_SIGNATURE_FILE_BYTES = 16 * 1024;

    private SkillInspector() {}

    /** Inspects {@code skillDirectory} with {@code options}. */
    public static Inspection inspect(Path skillDirectory, InspectOptions options) {
        Objects.requireNonNull(skillDirectory, "skillDirectory");
        Objects.requireNonNull(options, "options");
        CaptureOutcome outcome = SkillArtifact.capture(skillDirectory);
        if (outcome instanceof CaptureOutcome.Failed failed) {
            ValidationReport format = SkillValidator.validate(skillDirectory, options.profile());
            return new Inspection(
                    skillDirectory,
                    format,
                    Optional.of(failed.diagnostic()),
                    Optional.empty(),
                    List.of(),
                    Optional.empty(),
                    new SchemaVerdict(SchemaRole.INPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                    new SchemaVerdict(SchemaRole.OUTPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                    false,
                    List.of(failed.diagnostic()),
                    Optional.empty(),
                    List.of(),
                    new SignatureVerdict.NotChecked("the bundle could not be captured"));
        }
        try (SkillArtifact artifact = outcome.artifact().orElseThrow()) {
            return inspect(skillDirectory, artifact, options);
        }
    }

    private static Inspection inspect(Path skillDirectory, SkillArtifact artifact, InspectOptions options) {
        ValidationReport format = format(skillDirectory, artifact, options.profile());
        ManifestVerdict manifest = artifact.manifestVerdict();
        ContractVerdict contract = contract(artifact, options);
        List<Diagnostic> check = new ArrayList<>();
        if (contract instanceof ContractVerdict.Accepted accepted) {
            if (options.agentContext().isPresent()) {
                check.addAll(ContractCheck.check(
                        accepted.contract(), options.agentContext().get(), options.credentialBroker()));
            } else {
                check.addAll(ContractCheck.credentialProblems(
                        accepted.contract(), Optional.empty(), options.credentialBroker()));
            }
        }
        return new Inspection(
                skillDirectory,
                format,
                Optional.empty(),
                Optional.of(artifact.revision()),
                artifact.files(),
                Optional.of(manifest),
                schema(SchemaRole.INPUT, "/inputSchema", manifest),
                schema(SchemaRole.OUTPUT, "/outputSchema", manifest),
                artifact.executionAvailable(),
                artifact.executionProblems(),
                Optional.of(contract),
                check,
                signature(skillDirectory, artifact, contract, options));
    }

    /** The format verdict of the captured SKILL.md bytes (not a second read). */
    private static ValidationReport format(Path dir, SkillArtifact artifact, ValidationProfile profile) {
        byte[] bytes = artifact.bytes(artifact.skillMarkdownPath()).orElseThrow();
        ValidationReport report = Inspector.validateBytes(bytes, artifact.directoryName(), dir, profile);
        if (artifact.skillMarkdownPath().equals(Capturer.SKILL_MD)) {
            return report;
        }
        List<Finding> findings = new ArrayList<>();
        findings.add(new Finding(
                Diagnostic.warning(
                        ErrorCode.LAYOUT_SKILLMD_CASE,
                        artifact.skillMarkdownPath().value(),
                        "Found skill.md; the standard names the file SKILL.md (read as a compatibility fallback)"),
                false,
                false));
        findings.addAll(report.findings());
        return new ValidationReport(report.path(), report.profile(), report.document(), findings);
    }

    private static ContractVerdict contract(SkillArtifact artifact, InspectOptions options) {
        Optional<byte[]> bytes = artifact.contractBytes();
        if (bytes.isPresent()) {
            return ContractParser.parse(
                    bytes.get(), artifact.directoryName(), options.namespace(), options.contractDialects());
        }
        return artifact.contractProblem()
                .<ContractVerdict>map(p -> new ContractVerdict.Rejected(List.of(p)))
                .orElseGet(ContractVerdict.Absent::new);
    }

    /**
     * The gate's verdict on one schema, from the manifest verdict: accepted with the manifest;
     * rejected when a problem lies at or under the schema's pointer; not checked when the parser
     * stopped before the fields (syntax, size, version, root type), or there is no manifest.
     */
    static SchemaVerdict schema(SchemaRole role, String pointer, ManifestVerdict manifest) {
        if (manifest instanceof ManifestVerdict.Accepted) {
            return new SchemaVerdict(role, SchemaVerdict.Status.ACCEPTED, List.of());
        }
        if (!(manifest instanceof ManifestVerdict.Rejected rejected)) {
            return new SchemaVerdict(role, SchemaVerdict.Status.NOT_CHECKED, List.of());
        }
        List<Diagnostic> own = rejected.diagnostics().stream()
                .filter(d -> d.location().equals(pointer) || d.location().startsWith(pointer + "/"))
                .toList();
        if (!own.isEmpty()) {
            return new SchemaVerdict(role, SchemaVerdict.Status.REJECTED, own);
        }
        boolean stoppedEarly = rejected.diagnostics().stream()
                .allMatch(d -> d.location().isEmpty() || d.location().equals("/schemaVersion"));
        return new SchemaVerdict(
                role, stoppedEarly ? SchemaVerdict.Status.NOT_CHECKED : SchemaVerdict.Status.ACCEPTED, List.of());
    }

    private static SignatureVerdict signature(
            Path dir, SkillArtifact artifact, ContractVerdict contract, InspectOptions options) {
        if (!(contract instanceof ContractVerdict.Accepted accepted)) {
            return new SignatureVerdict.NotChecked("there is no accepted contract to verify a signature for");
        }
        BoundedReader reader = BoundedReader.forRoot(artifact.root(), MAX_SIGNATURE_FILE_BYTES);
        ReadOutcome<FileContent> read =
                reader.readBytes(PortablePath.of(SIGNATURE_FILE_NAME), MAX_SIGNATURE_FILE_BYTES);
        boolean absent = read.diagnostic()
                .map(d -> d.code() == ErrorCode.READ_NOT_FOUND && d.location().equals(SIGNATURE_FILE_NAME))
                .orElse(false);
        SkillContract c = accepted.contract();
        if (absent && c.origin().type() == OriginType.LOCAL_UNSIGNED) {
            return new SignatureVerdict.NotChecked("an unsigned local skill: it needs first-use approval instead");
        }
        if (options.signatureChecker().isEmpty()) {
            return new SignatureVerdict.NotChecked("no publisher keys are configured");
        }
        if (absent) {
            return new SignatureVerdict.Rejected(Diagnostic.error(
                    ErrorCode.SIGNATURE_MISSING,
                    SIGNATURE_FILE_NAME,
                    "the contract's origin is signed, but the bundle has no " + SIGNATURE_FILE_NAME));
        }
        if (read.diagnostic().isPresent()) {
            return new SignatureVerdict.Rejected(read.diagnostic().get());
        }
        byte[] signature = read.value().orElseThrow().bytes();
        return options.signatureChecker()
                .get()
                .check(
                        artifact.contractBytes().orElseThrow(),
                        artifact.revision(),
                        signature,
                        c.origin().publisher());
    }
}
