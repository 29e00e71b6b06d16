package dev.skillgate.testkit.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.skillgate.model.HardeningLayer;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.PortableSupervisor;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.SupervisorIdentity;
import dev.skillgate.testkit.contract.AbstractProcessSupervisorContractTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The supervisor TCK can fail: dishonest supervisors (the portable one, bent in one way each) are run
 * through chosen contract tests with the JUnit launcher, and those tests must fail.
 */
@EnabledOnOs(OS.LINUX)
class SupervisorContractSelfCheckTest {

    private static TestExecutionSummary run(Class<?> testClass, String method) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(testClass, method))
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }

    private static String failure(TestExecutionSummary summary) {
        assertThat(summary.getTestsFoundCount())
                .as("the contract test was found")
                .isEqualTo(1);
        assertThat(summary.getTestsFailedCount()).as("the contract test failed").isEqualTo(1);
        return String.valueOf(summary.getFailures().get(0).getException().getMessage());
    }

    /** Delegates to the portable supervisor; subclasses bend one rule. */
    abstract static class Bent implements ProcessSupervisor {
        final ProcessSupervisor real = PortableSupervisor.create();

        @Override
        public String name() {
            return "bent";
        }

        @Override
        public SupervisorCapabilities capabilities() {
            return real.capabilities();
        }
    }

    /** Claims proof it does not have: every started run is reported PROVEN, nothing detached. */
    static final class ClaimsProof extends Bent {
        @Override
        public SupervisorCapabilities capabilities() {
            return new SupervisorCapabilities(true, true, HardeningLayer.NONE, "claims proof it does not have");
        }

        @Override
        public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
            SupervisedRun run = real.launch(spec, listener);
            return new SupervisedRun() {
                @Override
                public void cancel() {
                    run.cancel();
                }

                @Override
                public CompletionStage<SupervisionResult> result() {
                    return run.result()
                            .thenApply(r -> r.cleanup().proof().equals("NOTHING_STARTED")
                                    ? r
                                    : new SupervisionResult(
                                            r.outcome(),
                                            r.exit(),
                                            r.stdout(),
                                            r.stderr(),
                                            new SupervisionResult.CleanupEvidence(
                                                    true, r.cleanup().descendantsSeen(), false, "CLAIMED"),
                                            r.hardening(),
                                            r.elapsed(),
                                            r.detail()));
                }
            };
        }
    }

    /** Starts the child first and records ownership once it runs. */
    static final class RecordsLate extends Bent {
        @Override
        public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
            AtomicReference<SupervisorIdentity> owner = new AtomicReference<>();
            LaunchSpec early = withRecorder(spec, owner::set);
            return real.launch(early, new SupervisionListener() {
                @Override
                public void started(long childPid) {
                    try {
                        spec.ownership().record(owner.get());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    listener.started(childPid);
                }

                @Override
                public void terminating(SupervisionResult.Outcome reason) {
                    listener.terminating(reason);
                }

                @Override
                public void settled() {
                    listener.settled();
                }
            });
        }
    }

    /** Starts the child even when the ownership recorder throws. */
    static final class IgnoresRecorderFailure extends Bent {
        @Override
        public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
            return real.launch(
                    withRecorder(spec, owner -> {
                        try {
                            spec.ownership().record(owner);
                        } catch (IOException e) {
                            // swallowed: the bug under test
                        }
                    }),
                    listener);
        }
    }

    static LaunchSpec withRecorder(LaunchSpec s, OwnershipRecorder recorder) {
        return s.withOwnership(recorder);
    }

    /** Starts the child in whatever directory is at the path: the working-directory identity is dropped. */
    static final class IgnoresWorkingDirectoryIdentity extends Bent {
        @Override
        public SupervisedRun launch(LaunchSpec s, SupervisionListener listener) {
            LaunchSpec byPath = new LaunchSpec(
                    s.runId(),
                    s.executable(),
                    s.executableDigest(),
                    s.arguments(),
                    s.workingDirectory(),
                    s.environment(),
                    s.stdin(),
                    s.stdoutLimit(),
                    s.stderrLimit(),
                    s.wallTimeout(),
                    s.terminationGrace(),
                    s.killDeadline(),
                    s.ceilings(),
                    s.ownership());
            return real.launch(byPath, listener);
        }
    }

    static class IgnoresWorkingDirectoryIdentityContract extends AbstractProcessSupervisorContractTest {
        @Override
        protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
            return new IgnoresWorkingDirectoryIdentity();
        }

        @Override
        protected boolean claimsCleanupProof() {
            return false;
        }
    }

    @Test
    void aSupervisorThatIgnoresTheWorkingDirectoryIdentityFails() {
        String message = failure(run(
                IgnoresWorkingDirectoryIdentityContract.class,
                "aWorkingDirectoryReplacedAfterTheRunnerBoundItNeverGetsTheScript"));
        assertThat(message).containsAnyOf("WORKSPACE_CHANGED", "REFUSED");
    }

    /** Not run by Surefire directly (the names do not end in Test). */
    static class ClaimsProofContract extends AbstractProcessSupervisorContractTest {
        @Override
        protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
            return new ClaimsProof();
        }

        @Override
        protected boolean claimsCleanupProof() {
            return true;
        }
    }

    static class RecordsLateContract extends AbstractProcessSupervisorContractTest {
        @Override
        protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
            return new RecordsLate();
        }

        @Override
        protected boolean claimsCleanupProof() {
            return false;
        }
    }

    static class IgnoresRecorderFailureContract extends AbstractProcessSupervisorContractTest {
        @Override
        protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
            return new IgnoresRecorderFailure();
        }

        @Override
        protected boolean claimsCleanupProof() {
            return false;
        }
    }

    static class ClaimsProofButCapabilitiesSayNo extends AbstractProcessSupervisorContractTest {
        @Override
        protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
            return PortableSupervisor.create();
        }

        @Override
        protected boolean claimsCleanupProof() {
            return true;
        }
    }

    @Test
    void aSupervisorReportingProvenWhileADetachedGrandchildSurvivesFails() {
        String message = failure(
                run(ClaimsProofContract.class, "aDoubleForkedSetsidGrandchildIsNeverReportedGoneWhileItSurvives"));
        assertThat(message).contains("PROVEN");
    }

    @Test
    void aSupervisorHidingThatAChildOutlivedTheScriptFails() {
        String message = failure(
                run(ClaimsProofContract.class, "aSameGroupChildOutlivingTheScriptIsNeverReportedGoneWhileItSurvives"));
        assertThat(message).contains("outlived the script");
    }

    @Test
    void aSupervisorThatStartsTheChildBeforeRecordingOwnershipFails() {
        String message =
                failure(run(RecordsLateContract.class, "theOwnershipRecorderIsCalledOnceBeforeTheChildStarts"));
        assertThat(message).contains("the child ran while the ownership recorder was still being called");
    }

    @Test
    void aSupervisorThatStartsTheChildDespiteAFailedRecordingFails() {
        String message =
                failure(run(IgnoresRecorderFailureContract.class, "aThrowingOwnershipRecorderMeansNothingStarts"));
        assertThat(message).containsAnyOf("ownership recorded before started(pid)", "must not start the child");
    }

    @Test
    void aClaimTheCapabilitiesContradictFails() {
        String message = failure(run(ClaimsProofButCapabilitiesSayNo.class, "itsCapabilitiesMatchTheClaim"));
        assertThat(message).contains("provesCleanup");
    }
}
