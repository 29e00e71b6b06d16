package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Confinement.Kind;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.ResourceCeilings;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The cgroup limits the approval request showed as enforced are required of the launch (decision
 * 0544): exactly those asked for and offered, and only with a file-write allow-list.
 */
class ConfinementsLimitsTest {
    private static final ResourceCeilings MEMORY_AND_CPU = ResourceCeilings.NONE.withCgroupLimits(
            OptionalLong.of(1_048_576), OptionalLong.empty(), OptionalLong.of(50));
    private static final Set<Kind> ALL = EnumSet.allOf(Kind.class);
    private static final LaunchConfinement WRITES =
            new LaunchConfinement(Optional.of(List.of(Path.of("/tmp/h"))), Optional.of(List.of())).requiring(ALL);

    @Test
    void limitsAskedForAndOfferedAreRequiredWithTheAllowList() {
        assertThat(Confinements.requiringLimits(WRITES, ALL, MEMORY_AND_CPU).required())
                .containsExactlyInAnyOrder(Kind.PROCESS_REACH, Kind.FILE_WRITES, Kind.NETWORK, Kind.MEMORY, Kind.CPU);
        Set<Kind> noCpu = EnumSet.complementOf(EnumSet.of(Kind.CPU));
        assertThat(Confinements.requiringLimits(WRITES, noCpu, MEMORY_AND_CPU).required())
                .contains(Kind.MEMORY)
                .doesNotContain(Kind.CPU, Kind.PROCESS_COUNT);
    }

    @Test
    void withoutAnAllowListOrWithoutAskingNothingMoreIsRequired() {
        LaunchConfinement open = LaunchConfinement.UNRESTRICTED.requiring(ALL);
        assertThat(Confinements.requiringLimits(open, ALL, MEMORY_AND_CPU)).isEqualTo(open);
        Set<Kind> noWrites = EnumSet.complementOf(EnumSet.of(Kind.FILE_WRITES));
        assertThat(Confinements.requiringLimits(WRITES, noWrites, MEMORY_AND_CPU))
                .isEqualTo(WRITES);
        assertThat(Confinements.requiringLimits(WRITES, ALL, ResourceCeilings.NONE))
                .isEqualTo(WRITES);
    }
}
