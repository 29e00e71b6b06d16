package dev.skillgate.project;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Exactly what a human approves for one project run: the execution inputs (their digests), the fixed
 * step sequence with the exact argv of every step, the pinned runtime, the output directory and the
 * limits. {@link #digest()} binds all of them; any drift after approval is refused before a step runs.
 *
 * <p>A plan says nothing about what the project's code will do: it runs with the host user's rights.
 *
 * @param project the project directory, absolute
 * @param outputDirectory the declared job-local output directory
 * @param inputs the input digests of the inspected snapshot
 * @param revision the revision of sources and dependencies together
 * @param steps the steps, in order (one, or a build then a test)
 * @param runtime the pinned node: path, exact version, and digest when pinned
 * @param argv the exact argv of each step (the staged working directory is {@link #WORKDIR_PLACEHOLDER})
 * @param digest SHA-256 over everything above and the limits
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectPlan(
        Path project,
        PortablePath outputDirectory,
        ProjectSnapshot.InputDigests inputs,
        Revision revision,
        List<ProjectStep> steps,
        RuntimeIdentity runtime,
        List<List<String>> argv,
        Sha256Digest digest) {

    /** The profile's name; part of the digest. */
    public static final String PROFILE = "skillgate-node-project-v1";

    /** Stands for the staged project directory (its random attempt token is chosen at staging). */
    public static final String WORKDIR_PLACEHOLDER = "DATA_DIR/projects/<attempt>-<run>/project";

    public ProjectPlan {
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(outputDirectory, "outputDirectory");
        Objects.requireNonNull(inputs, "inputs");
        Objects.requireNonNull(revision, "revision");
        steps = List.copyOf(steps);
        Objects.requireNonNull(runtime, "runtime");
        argv = argv.stream().map(List::copyOf).toList();
        Objects.requireNonNull(digest, "digest");
    }

    /** A plan, or why the selection cannot be one. */
    public sealed interface Selection permits Planned, Refused {}

    /**
     * The selection is a plan.
     *
     * @param plan the plan
     */
    public record Planned(ProjectPlan plan) implements Selection {
        public Planned {
            Objects.requireNonNull(plan, "plan");
        }
    }

    /**
     * The selection was refused.
     *
     * @param reasons why, each with its code
     */
    public record Refused(List<Diagnostic> reasons) implements Selection {
        public Refused {
            reasons = List.copyOf(reasons);
            if (reasons.isEmpty()) {
                throw new IllegalArgumentException("a refusal has a reason");
            }
        }
    }

    /**
     * Selects {@code scripts} (one script, or a build script then a test script) of an inspection for
     * the runtime {@code runtime} whose major/minor version decide the fixed flags.
     */
    public static Selection select(
            ProjectInspection inspection, List<String> scripts, RuntimeIdentity runtime, int major, int minor) {
        Objects.requireNonNull(inspection, "inspection");
        Objects.requireNonNull(runtime, "runtime");
        if (!inspection.problems().isEmpty()) {
            return new Refused(inspection.problems());
        }
        if (scripts.isEmpty()
                || scripts.size() > 2
                || scripts.stream().distinct().count() != scripts.size()) {
            return new Refused(List.of(Diagnostic.error(
                    ErrorCode.PROJECT_SEQUENCE_UNSUPPORTED,
                    "",
                    "select one script, or a build script then a test script")));
        }
        List<ProjectStep> steps = new ArrayList<>();
        for (String name : scripts) {
            var verdict = inspection.script(name);
            if (verdict.isEmpty()) {
                return new Refused(List.of(Diagnostic.error(
                        ErrorCode.PROJECT_SCRIPT_NOT_FOUND, "scripts", "package.json has no script of that name")));
            }
            if (verdict.get() instanceof ScriptVerdict.Refused r) {
                return new Refused(List.of(r.reason()));
            }
            steps.add(((ScriptVerdict.Supported) verdict.get()).step());
        }
        if (steps.size() == 2
                && (steps.get(0).kind() != StepKind.BUILD || steps.get(1).kind() != StepKind.TEST)) {
            return new Refused(List.of(Diagnostic.error(
                    ErrorCode.PROJECT_SEQUENCE_UNSUPPORTED,
                    "",
                    "a two-step sequence is a build script followed by a test script")));
        }
        ProjectStep last = steps.get(steps.size() - 1);
        if (!last.generatedTests().isEmpty() && steps.size() == 1) {
            return new Refused(List.of(Diagnostic.error(
                    ErrorCode.PROJECT_SCRIPT_PATH,
                    "scripts." + last.script(),
                    "the test names generated files but no build runs before it")));
        }
        List<List<String>> argv = new ArrayList<>();
        for (ProjectStep s : steps) {
            argv.add(argv(runtime.executable(), major, minor, s));
        }
        ProjectSnapshot snapshot = inspection.snapshot().orElseThrow();
        Revision revision = snapshot.revision();
        Sha256Digest digest = digest(
                inspection.root(), inspection.outputDirectory(), snapshot.digests(), revision, steps, runtime, argv);
        return new Planned(new ProjectPlan(
                inspection.root(),
                inspection.outputDirectory(),
                snapshot.digests(),
                revision,
                steps,
                runtime,
                argv,
                digest));
    }

    /** The fixed node flags of this profile for a Node version, before the step's own arguments. */
    public static List<String> flags(int major, int minor) {
        List<String> flags =
                new ArrayList<>(List.of("--no-addons", "--no-global-search-paths", "--unhandled-rejections=strict"));
        if (major > 23 || (major == 23 && minor >= 7) || (major == 22 && minor >= 14)) {
            flags.add("--disable-sigusr1");
        }
        return List.copyOf(flags);
    }

    static List<String> argv(Path node, int major, int minor, ProjectStep step) {
        List<String> argv = new ArrayList<>();
        argv.add(node.toString());
        argv.addAll(flags(major, minor));
        argv.addAll(step.arguments());
        return List.copyOf(argv);
    }

    private static Sha256Digest digest(
            Path project,
            PortablePath output,
            ProjectSnapshot.InputDigests inputs,
            Revision revision,
            List<ProjectStep> steps,
            RuntimeIdentity runtime,
            List<List<String>> argv) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update("skillgate-project-plan-v1\0".getBytes(StandardCharsets.US_ASCII));
        ProjectInspector.frame(md, PROFILE);
        ProjectInspector.frame(md, project.toString());
        ProjectInspector.frame(md, output.value());
        ProjectInspector.frame(md, inputs.combined().toString());
        ProjectInspector.frame(md, revision.toString());
        ProjectInspector.frame(md, runtime.executable().toString());
        ProjectInspector.frame(md, runtime.version());
        ProjectInspector.frame(
                md, runtime.binaryDigest().map(Sha256Digest::toString).orElse("none"));
        ProjectInspector.frame(md, WORKDIR_PLACEHOLDER);
        for (int i = 0; i < steps.size(); i++) {
            ProjectInspector.frame(md, steps.get(i).script());
            ProjectInspector.frame(md, steps.get(i).source());
            ProjectInspector.frame(md, Integer.toString(argv.get(i).size()));
            for (String a : argv.get(i)) {
                ProjectInspector.frame(md, a);
            }
        }
        ProjectInspector.frame(
                md,
                ProjectLimits.TOTAL_WALL + " " + ProjectLimits.STDOUT_BYTES + " " + ProjectLimits.STDERR_BYTES + " "
                        + ProjectLimits.TOTAL_OUTPUT_BYTES + " " + ProjectLimits.CLEANUP_RESERVE);
        ProjectInspector.frame(md, String.join(",", ProjectEnvironment.KEYS));
        return Sha256Digest.of(md.digest());
    }
}
