package dev.skillgate.project;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * The complete environment of every project step, built from nothing: a fixed {@code PATH}, a
 * job-local {@code HOME} (so caches such as {@code ~/.cache} are job-local too) and {@code TMPDIR},
 * and {@code LANG}. Nothing is inherited: no {@code NODE_*}, npm or auth variable, no ambient
 * {@code PATH}; no npm configuration is sourced because npm never runs.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectEnvironment {
    private ProjectEnvironment() {}

    /** The variable names, in order. */
    public static final List<String> KEYS = List.of("PATH", "HOME", "TMPDIR", "LANG");

    /** The fixed {@code PATH}; it matters only to subprocesses the project itself starts. */
    public static final String FIXED_PATH = "/usr/bin:/bin";

    /** The environment for one job. */
    public static Map<String, String> forJob(Path home, Path tmp) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", FIXED_PATH);
        env.put("HOME", home.toString());
        env.put("TMPDIR", tmp.toString());
        env.put("LANG", "C.UTF-8");
        return Map.copyOf(env);
    }
}
