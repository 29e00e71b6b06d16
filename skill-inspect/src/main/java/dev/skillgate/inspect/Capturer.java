package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.ReaderCore.BatchListener;
import dev.skillgate.inspect.internal.ReaderCore.BatchRead;
import dev.skillgate.inspect.internal.ReaderCore.BatchRefused;
import dev.skillgate.inspect.internal.ReaderCore.BatchRequest;
import dev.skillgate.inspect.internal.ReaderCore.BatchResult;
import dev.skillgate.inspect.internal.ReaderCore.SharedVerification;
import dev.skillgate.inspect.internal.Refusal;
import dev.skillgate.inspect.internal.RevisionPipeline;
import dev.skillgate.inspect.internal.VerifyWindows;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The capture procedure behind {@link SkillArtifact#capture}: three batches of reads under the same
 * bounded reader (the fixed files, then the declared files in path order, then the verification
 * pass). The revision of an executable capture is hashed by a {@link RevisionPipeline} next to the
 * reads and the verification pass, and joined before the artifact exists (decision 0300); a worker
 * that has hashed to the end helps with the rest of the verification pass (decision 0820). Not API.
 */
final class Capturer {
    static final PortablePath SKILL_MD = PortablePath.of("SKILL.md");
    static final PortablePath SKILL_MD_LOWER = PortablePath.of("skill.md");
    static final PortablePath MANIFEST = PortablePath.of(ExecutionManifest.FILE_NAME);
    static final PortablePath CONTRACT = PortablePath.of(SkillContract.FILE_NAME);

    /** The signature file signs the revision, so it can never be part of what the revision covers. */
    static final String SIGNATURE_FILE_NAME = "skill.contract.sig";

    /** The window the verification pass re-reads files through (kept by {@link VerifyWindows}). */
    static final int VERIFY_BUFFER_BYTES = VerifyWindows.BYTES;

    /** The manifest step of a library capture: the protocol's strict parser. */
    static final Function<byte[], ManifestVerdict> DEFAULT_MANIFEST_STEP = ManifestParser::parse;

    private Capturer() {}

    static CaptureOutcome capture(Path skillDirectory, Function<byte[], ManifestVerdict> manifestStep) {
        return capture(skillDirectory, manifestStep, CaptureHashExecutor.shared());
    }

    /**
     * A capture whose revision is hashed on {@code hashExecutor}, or on the capturing thread when
     * it is empty (the benchmark compares both).
     */
    static CaptureOutcome capture(
            Path skillDirectory, Function<byte[], ManifestVerdict> manifestStep, Optional<Executor> hashExecutor) {
        return capture(skillDirectory, manifestStep, hashExecutor, true);
    }

    /**
     * A capture as above; with {@code shareVerification} false the verification pass runs on the
     * capturing thread alone, as before decision 0820 (the benchmark pairs both in the same rounds).
     */
    static CaptureOutcome capture(
            Path skillDirectory,
            Function<byte[], ManifestVerdict> manifestStep,
            Optional<Executor> hashExecutor,
            boolean shareVerification) {
        ReaderCore reader = ReaderCore.open(skillDirectory, List.of(), Limits.CAPTURE_BYTES);
        if (reader.rootProblem().isPresent()) {
            return new CaptureOutcome.Failed(reader.rootProblem().get());
        }
        Work work = new Work(hashExecutor, shareVerification);
        boolean captured = false;
        try {
            CaptureOutcome outcome = run(reader, manifestStep, work);
            captured = outcome instanceof CaptureOutcome.Captured;
            return outcome;
        } catch (Refusal r) {
            return new CaptureOutcome.Failed(asChange(r.diagnostic()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CaptureOutcome.Failed(
                    Diagnostic.error(ErrorCode.READ_IO, "", "the capture was interrupted; nothing was captured"));
        } finally {
            // First stop the hash (it must no longer read the buffers), then clear what is not the artifact's.
            work.close(captured);
        }
    }

    /**
     * Everything a capture has read, so that a failure, however it happens, clears it all, and the
     * revision hash running next to it.
     */
    private static final class Work {
        final TreeMap<PortablePath, BatchRead> captured = new TreeMap<>();
        final List<PortablePath> absent = new ArrayList<>();
        /** Every array read, captured or not: what a failed capture clears. */
        final List<byte[]> read = new ArrayList<>();

        final Optional<Executor> hashExecutor;
        final boolean shareVerification;

        RevisionPipeline pipeline;
        SharedVerification verification;
        /** A worker woken while the manifest is parsed (decision 0875); released unless a pipeline took it. */
        Optional<RevisionPipeline.Standby> standby = Optional.empty();

        Work(Optional<Executor> hashExecutor, boolean shareVerification) {
            this.hashExecutor = hashExecutor;
            this.shareVerification = shareVerification;
        }

        void closePipeline() {
            standby.ifPresent(RevisionPipeline.Standby::release);
            if (verification != null) {
                // A worker still verifying stops before its next file; close() below waits for it.
                verification.stop();
            }
            if (pipeline != null) {
                pipeline.close();
                pipeline = null;
            }
        }

        void close(boolean success) {
            try {
                closePipeline();
            } finally {
                if (!success) {
                    read.forEach(bytes -> Arrays.fill(bytes, (byte) 0));
                }
                read.clear();
            }
        }
    }

    private static CaptureOutcome run(ReaderCore reader, Function<byte[], ManifestVerdict> manifestStep, Work work)
            throws Refusal, InterruptedException {
        TreeMap<PortablePath, BatchRead> captured = work.captured;
        List<PortablePath> absent = work.absent;
        BatchListener track = (index, result) -> {
            if (result instanceof BatchRead read) {
                work.read.add(read.bytes());
            }
        };
        List<BatchResult> fixed = reader.readBatch(
                List.of(
                        new BatchRequest(SKILL_MD, Limits.FILE_BYTES, true),
                        new BatchRequest(MANIFEST, Limits.MANIFEST_BYTES, false),
                        new BatchRequest(CONTRACT, Limits.MANIFEST_BYTES, false)),
                track);
        PortablePath skillFile = SKILL_MD;
        BatchResult skill = fixed.get(0);
        if (notFound(skill, SKILL_MD)) {
            absent.add(SKILL_MD);
            skillFile = SKILL_MD_LOWER;
            skill = reader.readBatch(List.of(new BatchRequest(SKILL_MD_LOWER, Limits.FILE_BYTES, true)), track)
                    .get(0);
            if (notFound(skill, SKILL_MD_LOWER)) {
                return new CaptureOutcome.Failed(
                        Diagnostic.error(ErrorCode.LAYOUT_SKILLMD, "", "the skill directory has no SKILL.md"));
            }
        }
        if (skill instanceof BatchRefused refused) {
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
            // Decision 0875: wake the hash worker now, so that its wake-up overlaps the parse.
            work.standby = RevisionPipeline.Standby.start(work.hashExecutor);
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
            executionProblems.addAll(readDeclared(reader, accepted.manifest(), work, track));
        } else {
            work.standby.ifPresent(RevisionPipeline.Standby::release); // nothing to hash on a worker
        }

        TreeMap<PortablePath, byte[]> bytes = new TreeMap<>();
        captured.forEach((path, read) -> bytes.put(path, read.bytes()));
        if (work.pipeline != null && !work.pipeline.paths().equals(List.copyOf(bytes.keySet()))) {
            throw new IllegalStateException("the revision pipeline does not cover exactly the captured files");
        }
        // Every read of the capture has returned: the verification pass starts here (decision 0241).
        Revision revision;
        if (work.pipeline != null && work.shareVerification) {
            // Decision 0820: the worker, once it has hashed to the end, takes files of the same pass.
            SharedVerification verification = reader.shareVerification(captured, absent);
            work.verification = verification;
            work.pipeline.afterHash(() -> verification.help(VerifyWindows::take, VerifyWindows::give));
            verification.help(VerifyWindows::take, VerifyWindows::give);
            if (verification.failed()) {
                verification.finish(); // throws the difference; close() stops and waits for the worker
            }
            revision = work.pipeline.join(); // the worker has also returned from its share
            verification.finish();
        } else {
            ByteBuffer window = VerifyWindows.take();
            try {
                reader.verifyBatch(captured, absent, window);
            } finally {
                VerifyWindows.give(window);
            }
            revision = work.pipeline != null ? work.pipeline.join() : Revision.compute(bytes);
        }
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

    /**
     * Reads the declared files not captured yet, in byte-wise path order (the revision's order), and
     * feeds each one to the revision pipeline as soon as it is read, with the fixed files at their
     * places, so the hash runs while the rest is read and verified. Returns the problems, in manifest
     * order; with any problem no declared file is kept and the pipeline is closed (the revision is
     * then computed over the fixed files alone).
     */
    private static List<Diagnostic> readDeclared(
            ReaderCore reader, ExecutionManifest manifest, Work work, BatchListener track) throws Refusal {
        TreeMap<PortablePath, BatchRead> captured = work.captured;
        TreeSet<PortablePath> sorted = new TreeSet<>();
        for (PortablePath path : manifest.files()) {
            if (!captured.containsKey(path)) {
                sorted.add(path);
            }
        }
        List<BatchRequest> declared = new ArrayList<>(sorted.size());
        for (PortablePath path : sorted) {
            declared.add(new BatchRequest(path, Limits.FILE_BYTES, path.equals(manifest.entrypoint())));
        }
        TreeSet<PortablePath> covered = new TreeSet<>(captured.keySet());
        covered.addAll(sorted);
        RevisionPipeline pipeline = RevisionPipeline.open(
                List.copyOf(covered), work.hashExecutor, RevisionPipeline.OFFLOAD_THRESHOLD_BYTES, work.standby);
        work.pipeline = pipeline;
        captured.forEach((path, read) -> pipeline.feed(path, read.bytes()));
        boolean[] refused = {false};
        List<BatchResult> results = reader.readBatch(declared, (index, result) -> {
            track.onResult(index, result);
            if (refused[0]) {
                return;
            }
            if (result instanceof BatchRead read) {
                pipeline.feed(declared.get(index).path(), read.bytes());
            } else {
                // This revision will not be used: stop hashing now, not after the batch.
                refused[0] = true;
                pipeline.cancel();
            }
        });
        Map<PortablePath, BatchResult> byPath = new HashMap<>();
        for (int i = 0; i < results.size(); i++) {
            byPath.put(declared.get(i).path(), results.get(i));
        }
        List<Diagnostic> problems = new ArrayList<>();
        for (PortablePath path : manifest.files()) {
            if (byPath.remove(path) instanceof BatchRefused r) {
                problems.add(declaredProblem(r.diagnostic(), path));
            }
        }
        if (problems.isEmpty()) {
            for (int i = 0; i < results.size(); i++) {
                captured.put(declared.get(i).path(), (BatchRead) results.get(i));
            }
        } else {
            // No partial executable capture: the declared files are dropped together.
            work.closePipeline();
            clear(results);
        }
        return problems;
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

    private static void clear(List<BatchResult> results) {
        for (BatchResult result : results) {
            if (result instanceof BatchRead read) {
                Arrays.fill(read.bytes(), (byte) 0);
            }
        }
    }
}
