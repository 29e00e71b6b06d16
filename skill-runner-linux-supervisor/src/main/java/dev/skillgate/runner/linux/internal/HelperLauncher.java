package dev.skillgate.runner.linux.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts the helper process with its three standard streams as pipes. The production launcher runs
 * exactly the file it is given — {@code /proc/<jvm>/fd/<n>}, the verified open helper (see
 * {@link HelperImage}) — with an empty environment in {@code /}; tests substitute launchers that run
 * a fake helper or a copy under a throwaway uid.
 */
@FunctionalInterface
public interface HelperLauncher {

    /**
     * Starts {@code executable} with {@code arguments}; stdin, stdout and stderr piped to this JVM.
     * Returns once the {@code exec} has happened (the JDK's launcher reports exec failures).
     */
    Process start(Path executable, List<String> arguments) throws IOException;

    /**
     * Whether the process started is {@code executable} itself, so that {@link HelperImage} may
     * check {@code /proc/<pid>/exe} against the verified inode. Only substitutes made with
     * {@link #substitute} say no; every other check still applies to them.
     */
    default boolean startsTheGivenFile() {
        return true;
    }

    /** The production launcher: the given path, cleared environment, working directory {@code /}. */
    static HelperLauncher direct() {
        return (executable, arguments) -> {
            List<String> cmd = new ArrayList<>();
            cmd.add(executable.toString());
            cmd.addAll(arguments);
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().clear();
            pb.directory(new File("/"));
            return pb.start();
        };
    }

    /**
     * For tests: a launcher that runs something other than the verified file (a fake helper, a copy
     * under another uid), so the check of {@code /proc/<pid>/exe} is skipped for it.
     */
    static HelperLauncher substitute(HelperLauncher other) {
        return new HelperLauncher() {
            @Override
            public Process start(Path executable, List<String> arguments) throws IOException {
                return other.start(executable, arguments);
            }

            @Override
            public boolean startsTheGivenFile() {
                return false;
            }
        };
    }
}
