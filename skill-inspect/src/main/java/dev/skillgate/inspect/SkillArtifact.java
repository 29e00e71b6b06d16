package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import org.apiguardian.api.API;

/**
 * An in-memory, immutable capture of a skill bundle (SPEC §7): {@code SKILL.md}, {@code
 * execution.json} and {@code skill.contract.json} when present, and every file the manifest
 * declares, read through one bounded, link-refusing reader, with the {@link Revision} over exactly
 * those bytes.
 *
 * <p><b>What is captured.</b> A prompt-only skill (no manifest, or a manifest that was rejected or
 * whose declared files could not all be read) is captured as {@code SKILL.md} plus, when present and
 * readable, {@code execution.json} and the contract; such an artifact is not executable and {@link
 * #executionProblems()} says why. An executable capture adds every declared file. {@code
 * skill.contract.sig} is never captured (it signs the revision). The revision covers exactly the
 * files {@link #files()} lists. See {@code docs/capture.md}.
 *
 * <p><b>What is checked.</b> Each file is typed and sized before it is opened, read into one
 * exactly-sized array, and looked at again; after all reads, the root's identity and every captured
 * file's identity (file key, size, modification time) and bytes are checked again, and files that
 * were absent must still be absent. Any observed change fails the capture with {@code
 * SOURCE_CHANGED}. This is <em>not</em> an atomic snapshot: a change that happens and is undone
 * between two looks is not seen, and the bundle on disk can change right after capture. What the
 * artifact guarantees is that its own bytes never change.
 *
 * <p><b>Copies and disposal.</b> Every accessor returns copies; no caller can change what another
 * sees. {@link #dispose()} (or {@link #close()}) overwrites every buffer with zeros; afterwards every
 * accessor except {@link #revision()} and {@link #isDisposed()} throws {@link
 * IllegalStateException}. Clearing is best effort against later memory disclosure (the JVM may have
 * copied arrays during garbage collection). Thread-safe.
 *
 * <p><b>Threads.</b> The revision of a larger capture is hashed on a shared daemon worker thread
 * ({@code skillgate-capture-hash-N}, at most 4, fewer than the processors) while the capturing
 * thread reads and verifies; {@link #capture} returns only after that hash is done or, on failure,
 * stopped, so no library thread reads or holds the buffers afterwards. The revision is the same
 * either way. An interrupted capture fails with {@code READ_IO} and keeps the interrupt status.
 *
 * <p>Capturing reads; it never executes, imports or installs anything. The artifact grants nothing:
 * running it still needs consent bound to its revision. Skillgate is not a sandbox.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillArtifact implements AutoCloseable {
    private final Path root;
    private final PortablePath skillMarkdownPath;
    private final SortedMap<PortablePath, byte[]> files;
    private final Revision revision;
    private final ManifestVerdict manifestVerdict;
    private final List<Diagnostic> executionProblems;
    private final boolean manifestCaptured;
    private final boolean contractCaptured;
    private final Optional<Diagnostic> contractProblem;
    private List<CapturedFile> listing;
    private boolean disposed;

    SkillArtifact(
            Path root,
            PortablePath skillMarkdownPath,
            SortedMap<PortablePath, byte[]> files,
            Revision revision,
            ManifestVerdict manifestVerdict,
            List<Diagnostic> executionProblems,
            boolean manifestCaptured,
            boolean contractCaptured,
            Optional<Diagnostic> contractProblem) {
        // The arrays are owned by this artifact from here on: the capturer hands them over uncopied.
        this.root = root;
        this.skillMarkdownPath = skillMarkdownPath;
        this.files = files;
        this.revision = revision;
        this.manifestVerdict = manifestVerdict;
        this.executionProblems = List.copyOf(executionProblems);
        this.manifestCaptured = manifestCaptured;
        this.contractCaptured = contractCaptured;
        this.contractProblem = contractProblem;
    }

    /**
     * Captures the skill directory {@code skillDirectory} (SPEC §7). Never throws for bundle
     * content: every expected problem is a {@link CaptureOutcome.Failed} or is reported by the
     * artifact.
     */
    public static CaptureOutcome capture(Path skillDirectory) {
        Objects.requireNonNull(skillDirectory, "skillDirectory");
        return Capturer.capture(skillDirectory, Capturer.DEFAULT_MANIFEST_STEP);
    }

    /** The content revision over exactly the captured files; available after disposal. */
    public Revision revision() {
        return revision;
    }

    /** The skill directory the capture was read from (absolute, normalised; not re-read). */
    public synchronized Path root() {
        live();
        return root;
    }

    /** The skill directory's name, as {@code identity.id} in a contract must end with it. */
    public synchronized String directoryName() {
        live();
        Path name = root.getFileName();
        return name == null ? "" : name.toString();
    }

    /** The captured files in revision order (byte-wise path order), with sizes and SHA-256 digests. */
    public synchronized List<CapturedFile> files() {
        live();
        if (listing == null) {
            List<CapturedFile> out = new ArrayList<>(files.size());
            files.forEach((path, bytes) -> out.add(new CapturedFile(path, bytes.length, Sha256Digest.hash(bytes))));
            listing = List.copyOf(out);
        }
        return listing;
    }

    /** Total captured bytes. */
    public synchronized long totalBytes() {
        live();
        long total = 0;
        for (byte[] bytes : files.values()) {
            total += bytes.length;
        }
        return total;
    }

    /** A copy of the captured bytes of {@code path}, when it was captured. */
    public synchronized Optional<byte[]> bytes(PortablePath path) {
        live();
        byte[] bytes = files.get(Objects.requireNonNull(path, "path"));
        return bytes == null ? Optional.empty() : Optional.of(bytes.clone());
    }

    /** Copies of every captured file's bytes, in revision order (for staging). */
    public synchronized Map<PortablePath, byte[]> copyOfContents() {
        live();
        Map<PortablePath, byte[]> out = new LinkedHashMap<>();
        files.forEach((path, bytes) -> out.put(path, bytes.clone()));
        return Collections.unmodifiableMap(out);
    }

    /** The path of the captured skill file: {@code SKILL.md}, or {@code skill.md} as a fallback. */
    public synchronized PortablePath skillMarkdownPath() {
        live();
        return skillMarkdownPath;
    }

    /**
     * The captured {@code SKILL.md} text (verified strict UTF-8 at capture). This is what prompt
     * activation hands to the agent: never re-read from the mutable source.
     */
    public synchronized String skillMarkdown() {
        live();
        return new String(files.get(skillMarkdownPath), StandardCharsets.UTF_8);
    }

    /** A copy of the captured {@code execution.json}, when it was present and readable. */
    public synchronized Optional<byte[]> manifestBytes() {
        live();
        return manifestCaptured ? bytes(PortablePath.of(ExecutionManifest.FILE_NAME)) : Optional.empty();
    }

    /** A copy of the captured {@code skill.contract.json}, when it was present and readable. */
    public synchronized Optional<byte[]> contractBytes() {
        live();
        return contractCaptured ? bytes(PortablePath.of(SkillContract.FILE_NAME)) : Optional.empty();
    }

    /** Why {@code skill.contract.json} is present but was not captured (a link, too large…). */
    public synchronized Optional<Diagnostic> contractProblem() {
        live();
        return contractProblem;
    }

    /**
     * What the strict manifest parser made of {@code execution.json}: accepted (with both schemas
     * compiled once for this capture), rejected (every problem with its JSON pointer; also a manifest
     * that could not be read, or that declares {@code skill.contract.sig}), or absent.
     */
    public synchronized ManifestVerdict manifestVerdict() {
        live();
        return manifestVerdict;
    }

    /** The accepted execution manifest, when there is one. */
    public synchronized Optional<ExecutionManifest> manifest() {
        live();
        return manifestVerdict instanceof ManifestVerdict.Accepted a ? Optional.of(a.manifest()) : Optional.empty();
    }

    /** The compiled input schema of an accepted manifest (for checking invocations). */
    public synchronized Optional<CompiledSchema> inputSchema() {
        live();
        return manifestVerdict instanceof ManifestVerdict.Accepted a ? Optional.of(a.inputSchema()) : Optional.empty();
    }

    /** The compiled output schema of an accepted manifest (for checking results). */
    public synchronized Optional<CompiledSchema> outputSchema() {
        live();
        return manifestVerdict instanceof ManifestVerdict.Accepted a ? Optional.of(a.outputSchema()) : Optional.empty();
    }

    /** Whether the manifest was accepted and every declared file was captured. */
    public synchronized boolean executionAvailable() {
        live();
        return executionProblems.isEmpty();
    }

    /**
     * Why execution is unavailable: {@code MANIFEST_ABSENT}, the manifest's problems, or the problems
     * reading declared files ({@code CAPTURE_FILE_MISSING}, {@code READ_*}); empty when it is
     * available.
     */
    public synchronized List<Diagnostic> executionProblems() {
        live();
        return executionProblems;
    }

    /** The entrypoint's source text (verified strict UTF-8 at capture), for an executable capture. */
    public synchronized Optional<String> entrypointSource() {
        live();
        if (!executionProblems.isEmpty() || !(manifestVerdict instanceof ManifestVerdict.Accepted a)) {
            return Optional.empty();
        }
        byte[] bytes = files.get(a.manifest().entrypoint());
        return bytes == null ? Optional.empty() : Optional.of(new String(bytes, StandardCharsets.UTF_8));
    }

    /** Whether {@link #dispose()} has run. */
    public synchronized boolean isDisposed() {
        return disposed;
    }

    /** Overwrites every captured buffer with zeros; idempotent. */
    public synchronized void dispose() {
        if (disposed) {
            return;
        }
        for (byte[] bytes : files.values()) {
            Arrays.fill(bytes, (byte) 0);
        }
        listing = null;
        disposed = true;
    }

    /** Same as {@link #dispose()}. */
    @Override
    public void close() {
        dispose();
    }

    private void live() {
        if (disposed) {
            throw new IllegalStateException("the artifact was disposed");
        }
    }

    @Override
    public String toString() {
        return "SkillArtifact[" + revision + "]";
    }
}
