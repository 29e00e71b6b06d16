package dev.skillgate.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisorCapabilities;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The selection rules, with stand-in supervisors that only report capabilities (nothing is launched). */
class SupervisorSelectorTest {

    private static ProcessSupervisor stub(String name, boolean available, boolean proves) {
        return new ProcessSupervisor() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public SupervisorCapabilities capabilities() {
                return available
                        ? new SupervisorCapabilities(
                                true, proves, proves ? HardeningLayer.L0 : HardeningLayer.NONE, name)
                        : SupervisorCapabilities.unavailable("not here");
            }

            @Override
            public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
                throw new AssertionError("selection must not launch anything");
            }
        };
    }

    private static ProcessSupervisor unavailable(String name, String detail) {
        return new ProcessSupervisor() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public SupervisorCapabilities capabilities() {
                return SupervisorCapabilities.unavailable(detail);
            }

            @Override
            public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
                throw new AssertionError("selection must not launch anything");
            }
        };
    }

    @Test
    void aTamperedCandidateRefusesEveryExecutionAndNeverFallsBack() {
        ProcessSupervisor tampered = unavailable(
                "linux-subreaper", "SUPERVISOR_TAMPERED: the extracted helper's SHA-256 differs from the shipped one");
        for (boolean unproven : new boolean[] {false, true}) {
            var choice = select(Optional.empty(), Optional.empty(), unproven, tampered);
            assertThat(choice.supervisor()).as("opt-in %s", unproven).isEmpty();
            assertThat(choice.report().problems())
                    .extracting(d -> d.code())
                    .containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
            assertThat(choice.report().problems().get(0).message()).contains("linux-subreaper", "SHA-256");
        }
        // Not even another proving supervisor is used while one was tampered with.
        var withOther = select(Optional.empty(), Optional.empty(), false, tampered, stub("other", true, true));
        assertThat(withOther.supervisor()).isEmpty();
        assertThat(withOther.report().problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
        // Named or set explicitly: the same code, not SUPERVISOR_UNAVAILABLE.
        assertThat(select(Optional.empty(), Optional.of("linux-subreaper"), false, tampered)
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
        assertThat(select(Optional.of(tampered), Optional.empty(), true)
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
    }

    @Test
    void anOtherwiseUnavailableCandidateStillLeavesTheUsualChoice() {
        ProcessSupervisor noexec =
                unavailable("linux-subreaper", "SUPERVISOR_UNAVAILABLE: the helper does not run here");
        assertThat(select(Optional.empty(), Optional.empty(), false, noexec)
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);
        assertThat(select(Optional.empty(), Optional.empty(), true, noexec)
                        .report()
                        .name())
                .isEqualTo("portable");
    }

    private static ProcessSupervisor throwing() {
        return new ProcessSupervisor() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public SupervisorCapabilities capabilities() {
                throw new IllegalStateException("probe failed");
            }

            @Override
            public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
                throw new AssertionError();
            }
        };
    }

    private static SupervisorSelector.Choice select(
            Optional<ProcessSupervisor> explicit, Optional<String> named, boolean unproven, ProcessSupervisor... c) {
        return SupervisorSelector.select(explicit, named, unproven, List.of(c));
    }

    @Test
    void theOnlyProvingCandidateIsChosen() {
        ProcessSupervisor linux = stub("linux-subreaper", true, true);
        var choice = select(Optional.empty(), Optional.empty(), false, linux, stub("other", false, false), throwing());
        assertThat(choice.supervisor()).containsSame(linux);
        assertThat(choice.report().available()).isTrue();
        assertThat(choice.report().provesCleanup()).isTrue();
        assertThat(choice.report().name()).isEqualTo("linux-subreaper");
    }

    @Test
    void severalProvingCandidatesAndNoneNamedFailClosed() {
        var choice = select(Optional.empty(), Optional.empty(), true, stub("a", true, true), stub("b", true, true));
        assertThat(choice.supervisor()).isEmpty();
        assertThat(choice.report().problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_AMBIGUOUS);
    }

    @Test
    void aNamedCandidateResolvesTheAmbiguity() {
        ProcessSupervisor b = stub("b", true, true);
        var choice = select(Optional.empty(), Optional.of("b"), false, stub("a", true, true), b);
        assertThat(choice.supervisor()).containsSame(b);
    }

    @Test
    void anUnknownOrUnavailableNameIsRefused() {
        assertThat(select(Optional.empty(), Optional.of("zzz"), false, stub("a", true, true))
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_UNAVAILABLE);
        assertThat(select(Optional.empty(), Optional.of("a"), false, stub("a", false, false))
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_UNAVAILABLE);
    }

    @Test
    void withNoProvingCandidateThePortableOneNeedsTheOptIn() {
        var refused = select(Optional.empty(), Optional.empty(), false, stub("x", false, false));
        assertThat(refused.supervisor()).isEmpty();
        assertThat(refused.report().problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);

        var portable = select(Optional.empty(), Optional.empty(), true, stub("x", false, false));
        assertThat(portable.report().name()).isEqualTo("portable");
        assertThat(portable.report().provesCleanup()).isFalse();
        assertThat(portable.report().unprovenCleanupAccepted()).isTrue();

        var named = select(Optional.empty(), Optional.of("portable"), false);
        assertThat(named.report().problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);
    }

    @Test
    void anExplicitSupervisorWinsButStillNeedsTheOptInWhenItCannotProve() {
        ProcessSupervisor weak = stub("weak", true, false);
        assertThat(select(Optional.of(weak), Optional.empty(), false, stub("linux", true, true))
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);
        assertThat(select(Optional.of(weak), Optional.empty(), true).supervisor())
                .containsSame(weak);
        assertThat(select(Optional.of(throwing()), Optional.empty(), true)
                        .report()
                        .problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.SUPERVISOR_UNAVAILABLE);
    }
}
