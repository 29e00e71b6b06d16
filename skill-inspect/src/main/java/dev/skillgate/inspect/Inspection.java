package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Revision;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Everything {@link SkillInspector} found out about one skill, inertly (SPEC §3, §5, §7, §13): the
 * format verdict, the capture and its revision, the manifest and schema verdicts, whether execution
 * is available and why not, the contract verdict and check, and the signature verdict.
 *
 * <p>The parts are reported separately, as SPEC §3 asks: a skill can be loadable as prompt material
 * with no manifest or a rejected one; an executable skill can have no contract. Every verdict is
 * about the captured bytes named by {@link #revision()}, except {@link #format()} when the capture
 * failed (then it comes from a separate validation read). Nothing in an inspection grants anything:
 * running needs consent, activation needs approval, and Skillgate is not a sandbox.
 *
 * @param path the skill directory as given
 * @param format the SKILL.md verdicts (portable and loadable)
 * @param captureProblem why the bundle could not be captured; empty when it was
 * @param revision the captured revision; empty when the capture failed
 * @param files the captured files with sizes and digests; empty when the capture failed
 * @param manifest the manifest verdict; empty when the capture failed
 * @param inputSchema the gate's verdict on {@code inputSchema}
 * @param outputSchema the gate's verdict on {@code outputSchema}
 * @param executionAvailable whether the skill's script could be offered for execution (subject to
 *     consent)
 * @param executionReasons why execution is unavailable; empty when it is available
 * @param contract the contract verdict; empty when the capture failed
 * @param contractCheck problems using an accepted contract: every enforcement failure against the
 *     configured agent context, or without one only {@code CONTRACT_CREDENTIALS_UNSUPPORTED}
 * @param signature the publisher-signature verdict
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Inspection(
        Path path,
        ValidationReport format,
        Optional<Diagnostic> captureProblem,
        Optional<Revision> revision,
        List<CapturedFile> files,
        Optional<ManifestVerdict> manifest,
        SchemaVerdict inputSchema,
        SchemaVerdict outputSchema,
        boolean executionAvailable,
        List<Diagnostic> executionReasons,
        Optional<ContractVerdict> contract,
        List<Diagnostic> contractCheck,
        SignatureVerdict signature) {

    public Inspection {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(captureProblem, "captureProblem");
        Objects.requireNonNull(revision, "revision");
        files = List.copyOf(files);
        Objects.requireNonNull(manifest, "manifest");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(outputSchema, "outputSchema");
        executionReasons = List.copyOf(executionReasons);
        Objects.requireNonNull(contract, "contract");
        contractCheck = List.copyOf(contractCheck);
        Objects.requireNonNull(signature, "signature");
        if (captureProblem.isPresent() == revision.isPresent()) {
            throw new IllegalArgumentException("either a revision or a capture problem");
        }
        if (executionAvailable != executionReasons.isEmpty()) {
            throw new IllegalArgumentException("unavailable execution has reasons, available has none");
        }
    }

    /**
     * Whether nothing was refused: the skill is loadable, was captured, and neither its manifest, its
     * contract (and its check), nor its signature was rejected. Absent parts, a signature that was
     * not checked and unavailable execution do not fail it. This is what {@code skillgate inspect}
     * exits by.
     */
    public boolean passes() {
        return format.loadable()
                && captureProblem.isEmpty()
                && manifest.map(m -> !(m instanceof ManifestVerdict.Rejected)).orElse(false)
                && contract.map(c -> !(c instanceof ContractVerdict.Rejected)).orElse(false)
                && contractCheck.isEmpty()
                && !(signature instanceof SignatureVerdict.Rejected);
    }
}
