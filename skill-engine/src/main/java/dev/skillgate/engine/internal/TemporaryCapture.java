package dev.skillgate.engine.internal;

import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.SkillContract;
import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A stand-in for skill-inspect's artifact capture until it lands on main: SKILL.md, the manifest,
 * the contract and every declared file, read through one bounded, link-refusing reader, with the
 * revision over exactly those bytes. Replaced by {@code SkillArtifact.capture}; not API.
 */
public final class TemporaryCapture {
    private TemporaryCapture() {}

    /** The captured bytes, or why there are none. */
    public sealed interface Outcome {}

    /** A capture. */
    public record Captured(Snapshot snapshot) implements Outcome {}

    /** No capture. */
    public record Failed(Diagnostic reason) implements Outcome {}

    /** What was captured; contents are copied on the way out. */
    public static final class Snapshot {
        private final Path root;
        private final Map<PortablePath, byte[]> files;
        private final Revision revision;
        private final ManifestVerdict manifest;
        private final List<Diagnostic> executionProblems;

        Snapshot(
                Path root,
                Map<PortablePath, byte[]> files,
                ManifestVerdict manifest,
                List<Diagnostic> executionProblems) {
            this.root = root;
            this.files = Collections.unmodifiableMap(new TreeMap<>(files));
            this.revision = Revision.compute(files);
            this.manifest = manifest;
            this.executionProblems = List.copyOf(executionProblems);
        }

        public Path root() {
            return root;
        }

        public Revision revision() {
            return revision;
        }

        public Map<PortablePath, byte[]> copyOfContents() {
            TreeMap<PortablePath, byte[]> copy = new TreeMap<>();
            files.forEach((k, v) -> copy.put(k, v.clone()));
            return copy;
        }

        public Optional<byte[]> bytes(PortablePath path) {
            return Optional.ofNullable(files.get(path)).map(byte[]::clone);
        }

        public String skillMarkdown() {
            return new String(files.get(SKILL_MD), StandardCharsets.UTF_8);
        }

        public ManifestVerdict manifest() {
            return manifest;
        }

        public List<Diagnostic> executionProblems() {
            return executionProblems;
        }
    }

    static final PortablePath SKILL_MD = PortablePath.of("SKILL.md");

    /** Captures {@code directory}. */
    public static Outcome capture(Path directory) {
        BoundedReader reader = BoundedReader.forRoot(directory, Limits.CAPTURE_BYTES);
        Map<PortablePath, byte[]> files = new TreeMap<>();
        ReadOutcome<FileContent> skill = reader.readText(SKILL_MD, Limits.FILE_BYTES);
        if (skill.value().isEmpty()) {
            return new Failed(skill.diagnostic().orElseThrow());
        }
        files.put(SKILL_MD, skill.value().get().bytes());
        Optional<byte[]> contract = optional(reader, PortablePath.of(SkillContract.FILE_NAME), Limits.MANIFEST_BYTES);
        contract.ifPresent(b -> files.put(PortablePath.of(SkillContract.FILE_NAME), b));
        PortablePath manifestPath = PortablePath.of(ExecutionManifest.FILE_NAME);
        Optional<byte[]> manifestBytes = optional(reader, manifestPath, Limits.MANIFEST_BYTES);
        if (manifestBytes.isEmpty()) {
            return new Captured(new Snapshot(
                    directory,
                    files,
                    ManifestVerdict.absent(),
                    List.of(Diagnostic.error(ErrorCode.MANIFEST_ABSENT, "", "the skill has no execution.json"))));
        }
        files.put(manifestPath, manifestBytes.get());
        ManifestVerdict verdict = ManifestParser.parse(manifestBytes.get());
        if (!(verdict instanceof ManifestVerdict.Accepted accepted)) {
            return new Captured(new Snapshot(directory, files, verdict, verdict.reasons()));
        }
        for (PortablePath declared : accepted.manifest().files()) {
            ReadOutcome<FileContent> read = reader.readBytes(declared, Limits.FILE_BYTES);
            if (read.value().isEmpty()) {
                return new Captured(new Snapshot(
                        directory, files, verdict, List.of(read.diagnostic().orElseThrow())));
            }
            files.put(declared, read.value().get().bytes());
        }
        return new Captured(new Snapshot(directory, files, verdict, List.of()));
    }

    private static Optional<byte[]> optional(BoundedReader reader, PortablePath path, int max) {
        ReadOutcome<FileContent> read = reader.readBytes(path, max);
        return read.value().map(FileContent::bytes);
    }
}
