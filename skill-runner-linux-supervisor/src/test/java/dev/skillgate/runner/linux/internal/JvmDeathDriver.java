package dev.skillgate.runner.linux.internal;

import dev.skillgate.runner.SupervisionListener;
import java.nio.file.Path;

/**
 * Run in a separate JVM by {@link JvmDeathTest}: starts a supervised hanging script with a detached
 * grandchild, prints {@code READY <tag> <helper pid>} and waits to be SIGKILLed.
 */
public final class JvmDeathDriver {
    private JvmDeathDriver() {}

    public static void main(String[] args) throws Exception {
        SupervisorCore core = SupervisorCore.prepare(Path.of(args[0]), Wire.POLICY_PREFER, HelperLauncher.direct());
        TestRun t = TestRun.of(Path.of(args[1]), "hang.mjs", "main", "detach");
        t.launch(core, SupervisionListener.NONE);
        t.awaitFile("hang.ready");
        System.out.println(
                "READY " + t.tag + " " + t.fsyncRecorder.recorded.get().pid());
        System.out.flush();
        Thread.sleep(120_000);
    }
}
