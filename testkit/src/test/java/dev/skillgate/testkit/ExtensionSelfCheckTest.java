package dev.skillgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The extension's own guarantees, checked by running inner test classes through the JUnit launcher:
 * a test that leaves a process carrying its marker fails (and the process is killed); the
 * directories are gone afterwards.
 */
@EnabledOnOs(OS.LINUX)
class ExtensionSelfCheckTest {

    private static TestExecutionSummary run(Class<?> testClass) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(testClass))
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }

    static volatile ProcessHandle leftBehind;
    static volatile java.nio.file.Path base;

    /** Not run by Surefire directly (the name does not end in Test). */
    static class LeavesAProcessBehind {
        @RegisterExtension
        final SkillGateExtension skillgate = new SkillGateExtension();

        @Test
        void startsAProcessCarryingTheMarkerAndReturns() throws Exception {
            base = skillgate.dataDirectory().getParent();
            ProcessBuilder pb = new ProcessBuilder("/bin/sleep", "60");
            pb.environment().clear();
            pb.environment()
                    .put("HOME", skillgate.dataDirectory().resolve("home").toString());
            leftBehind = pb.start().toHandle();
        }
    }

    @Test
    void aTestThatLeavesAProcessBehindFailsAndTheProcessIsKilled() throws Exception {
        TestExecutionSummary summary = run(LeavesAProcessBehind.class);
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        List<TestExecutionSummary.Failure> failures = summary.getFailures();
        assertThat(failures.get(0).getException()).hasMessageContaining("processes survived the test");
        leftBehind.onExit().get(10, TimeUnit.SECONDS);
        assertThat(leftBehind.isAlive()).isFalse();
        assertThat(Files.exists(base)).as("the test's directories are deleted").isFalse();
    }

    /** Not run by Surefire directly. */
    static class CleanRun {
        @RegisterExtension
        final SkillGateExtension skillgate = new SkillGateExtension();

        @Test
        void doesNothing() {
            base = skillgate.dataDirectory().getParent();
        }
    }

    @Test
    void aCleanTestPassesAndLeavesNoDirectories() {
        TestExecutionSummary summary = run(CleanRun.class);
        assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
        assertThat(summary.getTestsFailedCount()).isZero();
        assertThat(Files.exists(base)).isFalse();
    }
}
