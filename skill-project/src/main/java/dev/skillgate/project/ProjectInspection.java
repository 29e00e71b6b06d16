package dev.skillgate.project;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.PortablePath;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What an inert inspection of one project found: every {@code scripts} entry with its verdict, the
 * project-level problems, and — only when there are none — the captured snapshot.
 *
 * @param root the project directory, absolute
 * @param outputDirectory the declared job-local output directory (where a build writes and generated
 *     tests must stay)
 * @param scripts one verdict per {@code scripts} entry, in the file's order
 * @param problems project-level refusals (manifest, lockfile, links, bounds); empty when the snapshot
 *     is usable
 * @param snapshot the captured inputs, present exactly when {@code problems} is empty
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectInspection(
        Path root,
        PortablePath outputDirectory,
        List<ScriptVerdict> scripts,
        List<Diagnostic> problems,
        Optional<ProjectSnapshot> snapshot) {
    public ProjectInspection {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(outputDirectory, "outputDirectory");
        scripts = List.copyOf(scripts);
        problems = List.copyOf(problems);
        Objects.requireNonNull(snapshot, "snapshot");
        if (snapshot.isPresent() != problems.isEmpty()) {
            throw new IllegalArgumentException("a snapshot exists exactly when there are no problems");
        }
    }

    /** The verdict for the script {@code name}, if {@code package.json} has it. */
    public Optional<ScriptVerdict> script(String name) {
        return scripts.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** Whether the snapshot was captured. */
    public boolean usable() {
        return snapshot.isPresent();
    }
}
