package dev.skillgate.engine;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.RunId;
import dev.skillgate.project.ProjectInspector;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A request to run a project's scripts through {@link ProjectGate#run}: which project, which scripts
 * (one, or a build then a test), for which run and agent, and the declared output directory.
 *
 * @param run the agent run
 * @param agent the agent
 * @param project the project directory
 * @param scripts the script names, in order
 * @param outputDirectory the job-local directory a build writes to ({@code dist} by default)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectRequest(
        RunId run, AgentId agent, Path project, List<String> scripts, PortablePath outputDirectory) {
    public ProjectRequest {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(project, "project");
        scripts = List.copyOf(scripts);
        Objects.requireNonNull(outputDirectory, "outputDirectory");
    }

    /** A request for {@code scripts} with the default output directory. */
    public static ProjectRequest of(RunId run, AgentId agent, Path project, String... scripts) {
        return new ProjectRequest(run, agent, project, List.of(scripts), ProjectInspector.DEFAULT_OUTPUT);
    }
}
