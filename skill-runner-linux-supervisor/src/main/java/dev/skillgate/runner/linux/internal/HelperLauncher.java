package dev.skillgate.runner.linux.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Starts the helper process with its three standard streams as pipes. The production launcher runs
 * it by absolute path with an empty environment in {@code /}; tests substitute a launcher that runs
 * the same binary under a throwaway uid.
 */
@FunctionalInterface
public interface HelperLauncher {

    /** Starts {@code helper} (an absolute path) with stdin, stdout and stderr piped to this JVM. */
    Process start(Path helper) throws IOException;

    /** The production launcher: absolute path, cleared environment, working directory {@code /}. */
    static HelperLauncher direct() {
        return helper -> {
            ProcessBuilder pb = new ProcessBuilder(helper.toAbsolutePath().toString());
            pb.environment().clear();
            pb.directory(new File("/"));
            return pb.start();
        };
    }
}
