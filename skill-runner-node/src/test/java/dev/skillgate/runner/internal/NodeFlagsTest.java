package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NodeFlagsTest {

    @Test
    void node18To22FlagsAreFixedAndEndWithDoubleDash() {
        for (int major : new int[] {18, 19, 20, 21}) {
            assertThat(NodeFlags.forVersion(major, 99))
                    .containsExactly(
                            "--no-addons",
                            "--no-global-search-paths",
                            "--disable-proto=delete",
                            "--unhandled-rejections=strict",
                            "--");
        }
        assertThat(NodeFlags.forVersion(22, 13)).doesNotContain("--disable-sigusr1");
    }

    @Test
    void sigusr1IsDisabledWhereNodeSupportsIt() {
        assertThat(NodeFlags.forVersion(22, 14)).contains("--disable-sigusr1");
        assertThat(NodeFlags.forVersion(23, 6)).doesNotContain("--disable-sigusr1");
        assertThat(NodeFlags.forVersion(23, 7)).contains("--disable-sigusr1");
        assertThat(NodeFlags.forVersion(24, 0)).contains("--disable-sigusr1").endsWith("--");
    }

    @Test
    void nodeOlderThan18IsRejected() {
        assertThatThrownBy(() -> NodeFlags.forVersion(16, 20)).isInstanceOf(IllegalArgumentException.class);
    }
}
