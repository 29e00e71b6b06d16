package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.ReaderCore.BatchRead;
import dev.skillgate.inspect.internal.ReaderCore.BatchRefused;
import dev.skillgate.inspect.internal.ReaderCore.BatchRequest;
import dev.skillgate.inspect.internal.ReaderCore.BatchResult;
import dev.skillgate.inspect.internal.Refusal;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.Text;
import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The capture procedure behind {@link SkillArtifact#capture}: three batches of reads under the same
 * bounded reader (the fixed files, then the declared files, then the verification pass), then the
 * revision. Not API.
 */
final class Capturer {
    static final PortablePath SKILL_MD = PortablePath.of("SKILL.md");
    static final PortablePath SKILL_MD_LOWER = PortablePath.of("skill.md");
    static final PortablePath MANIFEST = PortablePath.of(ExecutionManifest.FILE_NAME);
    static final PortablePath CONTRACT = PortablePath.of(SkillContract.FILE_NAME);

    /** The signature file signs the revision, so it can never be part of what the revision covers. */
    static final String SIGNATURE_FILE_NAME = "skill.contract.sig";

    /** The window the verification pass re-reads files through. */
    static final int VERIFY_BUFFER_BYTES = 64 * 1024;

    /** The manifest step of a library capture: the protocol's strict parser. */
    static final Function<byte[], ManifestVerdict> DEFAULT_MANIFEST_STEP = ManifestParser::parse;

    private Capturer() {}

    static CaptureOutcome capture(Path skillDirectory, Function<byte[], ManifestVerdict> manifestStep) {
        ReaderCore reader = ReaderCore.open(skillDirectory, List.of(), Limits.CAPTURE_BYTES);
        if (reader.rootProblem().isPresent()) {
            return new CaptureOutcome.Failed(reader.rootProblem().get());
        }
        TreeMap<PortablePath, BatchRead> captured = new TreeMap<>();
        List<PortablePath> absent = new ArrayList<>();
        try {
            return run(reader, manifestStep, captured, absent);
        } catch (Refusal r) {
            clear(captured);
            return new CaptureOutcome.Failed(asChange(r.diagnostic()));
        }
    }

    private static CaptureOutcome run(
            ReaderCore reader,
            Function<byte[], ManifestVerdict> manifestStep,
            TreeMap<PortablePath, BatchRead> captured,
            List<PortablePath> absent)
            throws Refusal {
        List<BatchResult> fixed = reader.readBatch(List.of(
                new BatchRequest(SKILL_MD, Limits.FILE_BYTES, true),
                new BatchRequest(MANIFEST, Limits.MANIFEST_BYTES, false),
                new BatchRequest(CONTRACT, Limits.MANIFEST_BYTES, false)));
        PortablePath skillFile = SKILL_MD;
        BatchResult skill = fixed.get(0);
        if (notFound(skill, SKILL_MD)) {
            absent.add(SKILL_MD);
            skillFile = SKILL_MD_LOWER;
            skill = reader.readBatch(List.of(new BatchRequest(SKILL_MD_LOWER, Limits.FILE_BYTES, true)))
                    .get(0);
            if (notFound(skill, SKILL_MD_LOWER)) {
                clear(fixed);
                return new CaptureOutcome.Failed(
                        Diagnostic.error(ErrorCode.LAYOUT_SKILLMD, "", "the skill directory has no SKILL.md"));
            }
        }
        if (skill instanceof BatchRefused refused) {
            clear(fixed);
            return new CaptureOutcome.Failed(refused.diagnostic());
        }
        captured.put(skillFile, (BatchRead) skill);

        ManifestVerdict verdict;
        boolean manifestCaptured = false;
        BatchResult manifestResult = fixed.get(1);
        if (notFound(manifestResult, MANIFEST)) {
            absent.add(MANIFEST);
            verdict = ManifestVerdict.absent();
        } else if (manifestResult instanceof BatchRefused refused) {
            verdict = new ManifestVerdict.Rejected(List.of(manifestReadProblem(refused.diagnostic())));
        } else {
            BatchRead read = (BatchRead) manifestResult;
            captured.put(MANIFEST, read);
            manifestCaptured = true;
            verdict = manifestStep.apply(read.bytes());
            if (verdict instanceof ManifestVerdict.Accepted accepted) {
                List<Diagnostic> reserved = reserved(accepted.manifest());
                if (!reserved.isEmpty()) {
                    verdict = new ManifestVerdict.Rejected(reserved);
                }
            }
        }
        List<Diagnostic> executionProblems = new ArrayList<>(verdict.reasons());

        boolean contractCaptured = false;
        Optional<Diagnostic> contractProblem = Optional.empty();
        BatchResult contractResult = fixed.get(2);
        if (notFound(contractResult, CONTRACT)) {
            absent.add(CONTRACT);
        } else if (contractResult instanceof BatchRefused refused) {
            contractProblem = Optional.of(contractReadProblem(refused.diagnostic()));
        } else {
            captured.put(CONTRACT, (BatchRead) contractResult);
            contractCaptured = true;
        }

        if (verdict instanceof ManifestVerdict.Accepted accepted) {
            ExecutionManifest m = accepted.manifest();
            List<BatchRequest> declared = new ArrayList<>();
            for (PortablePath path : m.files()) {
                if (!captured.containsKey(path)) {
                    declared.add(new BatchRequest(path, Limits.FILE_BYTES, path.equals(m.entrypoint())));
                }
            }
            List<BatchResult> results = reader.readBatch(declared);
            List<Diagnostic> fileProblems = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof BatchRefused refused) {
                    fileProblems.add(declaredProblem(
                            refused.diagnostic(), declared.get(i).path()));
                }
            }
            if (fileProblems.isEmpty()) {
                for (int i = 0; i < results.size(); i++) {
                    captured.put(declared.get(i).path(), (BatchRead) results.get(i));
                }
            } else {
                // No partial executable capture: the declared files are dropped together.
                clear(results);
                executionProblems.addAll(fileProblems);
            }
        }

        reader.verifyBatch(captured, absent, ByteBuffer.allocateDirect(VERIFY_BUFFER_BYTES));

        TreeMap<PortablePath, byte[]> bytes = new TreeMap<>();
        captured.forEach((path, read) -> bytes.put(path, read.bytes()));
        Revision revision = Revision.compute(bytes);
        return new CaptureOutcome.Captured(new SkillArtifact(
                reader.root(),
                skillFile,
                bytes,
                revision,
                verdict,
                executionProblems,
                manifestCaptured,
                contractCaptured,
                contractProblem));
    }

    private static boolean notFound(BatchResult result, PortablePath path) {
        return result instanceof BatchRefused refused
                && refused.diagnostic().code() == ErrorCode.READ_NOT_FOUND
                && refused.diagnostic().location().equals(path.value());
    }

    /** Paths a manifest may not declare: the signature file, under any case. */
    private static List<Diagnostic> reserved(ExecutionManifest manifest) {
        String signature = PortablePath.of(SIGNATURE_FILE_NAME).collisionKey();
        List<Diagnostic> problems = new ArrayList<>();
        for (int i = 0; i < manifest.files().size(); i++) {
            PortablePath path = manifest.files().get(i);
            if (path.collisionKey().equals(signature)) {
                problems.add(Diagnostic.error(
                        ErrorCode.MANIFEST_FILE_RESERVED,
                        "/files/" + i,
                        "'" + Text.excerpt(path.value()) + "' is the publisher signature file; it signs the"
                                + " revision and cannot be part of it"));
            }
        }
        return problems;
    }

    private static Diagnostic manifestReadProblem(Diagnostic read) {
        if (read.code() == ErrorCode.READ_TOO_LARGE) {
            return Diagnostic.error(
                    ErrorCode.MANIFEST_TOO_LARGE,
                    "",
                    "execution.json exceeds " + Limits.MANIFEST_BYTES + " bytes; it was not read");
        }
        return read;
    }

    private static Diagnostic contractReadProblem(Diagnostic read) {
        if (read.code() == ErrorCode.READ_TOO_LARGE) {
            return Diagnostic.error(
                    ErrorCode.CONTRACT_SYNTAX,
                    "",
                    SkillContract.FILE_NAME + " exceeds " + Limits.MANIFEST_BYTES + " bytes; it was not read");
        }
        return read;
    }

    private static Diagnostic declaredProblem(Diagnostic read, PortablePath path) {
        if (read.code() == ErrorCode.READ_NOT_FOUND) {
            return Diagnostic.error(
                    ErrorCode.CAPTURE_FILE_MISSING,
                    path.value(),
                    "declared file '" + Text.excerpt(path.value()) + "' does not exist");
        }
        return read;
    }

    /** After the reader was opened, a root that went away or changed is a change during capture. */
    private static Diagnostic asChange(Diagnostic problem) {
        boolean gone = problem.location().isEmpty()
                && (problem.code() == ErrorCode.READ_NOT_FOUND
                        || problem.code() == ErrorCode.READ_LINK
                        || problem.code() == ErrorCode.READ_NOT_REGULAR);
        if (!gone) {
            return problem;
        }
        return Diagnostic.error(
                ErrorCode.SOURCE_CHANGED,
                problem.location(),
                "the skill root changed while it was being captured ("
                        + problem.code().name() + ")");
    }

    private static void clear(Map<PortablePath, BatchRead> reads) {
        reads.values().forEach(r -> Arrays.fill(r.bytes(), (byte) 0));
    }

    private static void clear(List<BatchResult> results) {
        for (BatchResult result : results) {
            if (result instanceof BatchRead read) {
                Arrays.fill(read.bytes(), (byte) 0);
            }
        }
    }
}
