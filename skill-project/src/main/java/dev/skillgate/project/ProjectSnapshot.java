package dev.skillgate.project;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apiguardian.api.API;

/**
 * The captured execution inputs of one project: the bytes of every source file and every installed
 * dependency file, read once through the bounded, link-refusing reader, and their digests. A run stages
 * exactly these bytes; a later inspection whose {@link InputDigests#combined()} differs is drift.
 *
 * <p>It guarantees that the bytes are what was read, within {@link ProjectLimits}; it does not
 * guarantee that the files on disk still hold them.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectSnapshot {
    private final SortedMap<PortablePath, byte[]> sources;
    private final SortedMap<PortablePath, byte[]> dependencies;
    private final SortedMap<PortablePath, PortablePath> binLinks;
    private final InputDigests digests;

    /**
     * The digests that identify the execution inputs; every one is shown in the approval request.
     *
     * @param packageJson SHA-256 of {@code package.json}
     * @param lockfile SHA-256 of {@code package-lock.json}, when there is one
     * @param configs SHA-256 of each {@code tsconfig*.json} among the sources
     * @param sources the revision of the source files ({@code docs/revision.md} framing)
     * @param dependencies the revision of the dependency files under {@code node_modules}
     * @param binLinks SHA-256 over the checked {@code node_modules/.bin} links and their targets
     * @param combined SHA-256 over all of the above: the project's input identity
     */
    public record InputDigests(
            Sha256Digest packageJson,
            Optional<Sha256Digest> lockfile,
            SortedMap<PortablePath, Sha256Digest> configs,
            Revision sources,
            Revision dependencies,
            Sha256Digest binLinks,
            Sha256Digest combined) {
        public InputDigests {
            Objects.requireNonNull(packageJson, "packageJson");
            Objects.requireNonNull(lockfile, "lockfile");
            configs = Collections.unmodifiableSortedMap(new TreeMap<>(configs));
            Objects.requireNonNull(sources, "sources");
            Objects.requireNonNull(dependencies, "dependencies");
            Objects.requireNonNull(binLinks, "binLinks");
            Objects.requireNonNull(combined, "combined");
        }
    }

    ProjectSnapshot(
            Map<PortablePath, byte[]> sources,
            Map<PortablePath, byte[]> dependencies,
            Map<PortablePath, PortablePath> binLinks,
            InputDigests digests) {
        this.sources = Collections.unmodifiableSortedMap(new TreeMap<>(sources));
        this.dependencies = Collections.unmodifiableSortedMap(new TreeMap<>(dependencies));
        this.binLinks = Collections.unmodifiableSortedMap(new TreeMap<>(binLinks));
        this.digests = Objects.requireNonNull(digests, "digests");
    }

    /** The input digests. */
    public InputDigests digests() {
        return digests;
    }

    /** The revision of sources and dependencies together (what the audit log records). */
    public Revision revision() {
        TreeMap<PortablePath, byte[]> all = new TreeMap<>(sources);
        all.putAll(dependencies);
        return Revision.compute(all);
    }

    /** The source paths, sorted. */
    public List<PortablePath> sourcePaths() {
        return List.copyOf(sources.keySet());
    }

    /** The dependency paths, sorted. */
    public List<PortablePath> dependencyPaths() {
        return List.copyOf(dependencies.keySet());
    }

    /** The checked {@code .bin} links: link path to the dependency file it resolves to. Never staged, never run. */
    public SortedMap<PortablePath, PortablePath> binLinks() {
        return binLinks;
    }

    /** Bytes of sources and dependencies together. */
    public long totalBytes() {
        long n = 0;
        for (byte[] b : sources.values()) {
            n += b.length;
        }
        for (byte[] b : dependencies.values()) {
            n += b.length;
        }
        return n;
    }

    /** A copy of one captured file's bytes (source or dependency). */
    public Optional<byte[]> content(PortablePath path) {
        byte[] b = sources.containsKey(path) ? sources.get(path) : dependencies.get(path);
        return b == null ? Optional.empty() : Optional.of(b.clone());
    }

    /** Every captured file, for staging (not copied: the staging writer only reads them). */
    Map<PortablePath, byte[]> allFiles() {
        TreeMap<PortablePath, byte[]> all = new TreeMap<>(sources);
        all.putAll(dependencies);
        return all;
    }

    @Override
    public String toString() {
        return "ProjectSnapshot[sources=" + sources.size() + ", dependencies=" + dependencies.size() + ", inputs="
                + digests.combined() + "]";
    }
}
