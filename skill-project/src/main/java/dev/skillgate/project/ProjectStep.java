package dev.skillgate.project;

import dev.skillgate.model.PortablePath;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One supported script, resolved: the argument tokens that follow the pinned {@code node} and its
 * fixed flags, relative to the staged project directory. Built by the inspector, never from caller
 * input.
 *
 * @param script the script's name in {@code package.json}
 * @param source the script's text as written
 * @param kind test or build
 * @param form the supported form it matched
 * @param arguments the node arguments after the fixed flags, e.g. {@code [--test, test/a.test.js]},
 *     {@code [--, build.js]} or {@code [--, node_modules/typescript/bin/tsc, --project, tsconfig.json]}
 * @param generatedTests test paths inside the declared output directory, which exist only after a build
 *     and are validated then, before the test step runs
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ProjectStep(
        String script,
        String source,
        StepKind kind,
        StepForm form,
        List<String> arguments,
        List<PortablePath> generatedTests) {

    /** The TypeScript compiler entrypoint a {@link StepForm#TSC_PROJECT} step runs. */
    public static final PortablePath TSC_ENTRYPOINT = PortablePath.of("node_modules/typescript/bin/tsc");

    public ProjectStep {
        Objects.requireNonNull(script, "script");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(form, "form");
        arguments = List.copyOf(arguments);
        generatedTests = List.copyOf(generatedTests);
    }
}
