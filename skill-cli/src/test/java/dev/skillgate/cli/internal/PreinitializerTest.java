package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Decision 0882: the warming goes through the parsers it means to, and never holds the JVM open. */
class PreinitializerTest {

    @Test
    void theWarmingValidatesCompilesAndChecksItsConstants() {
        // False if an entry point stopped accepting the constants: then it would warm nothing.
        assertThat(Preinitializer.warm()).isTrue();
    }

    @Test
    void theThreadIsADaemonThatEndsByItself() throws InterruptedException {
        Thread t = Preinitializer.start();
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getName()).isEqualTo("skillgate-run-preinit");
        t.join(60_000);
        assertThat(t.isAlive()).isFalse();
    }
}
