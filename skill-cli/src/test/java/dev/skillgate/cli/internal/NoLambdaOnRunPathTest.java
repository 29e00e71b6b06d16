package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Decision 0895: the code a cold {@code skillgate run --approve} runs is written without lambdas and
 * method references, because each such call site is linked through {@code java.lang.invoke} in every
 * fresh JVM (≈ 0.3 ms each). This reads {@code RunCommand}'s class file and fails when a {@code
 * LambdaMetafactory} site is added back.
 */
class NoLambdaOnRunPathTest {
    /**
     * The sites RunCommand keeps: those of its refusals and of the JSON document (a successful text
     * run takes neither), and 12 that a successful run still links and that are still to do (the
     * runtime answer, the interrupt handler, printEnvelope, the finally's staging check). One more
     * fails.
     */
    private static final int KEPT_RUN_COMMAND = 23;

    @Test
    void runCommandHasNoNewLambdaSites() throws IOException {
        byte[] runCommand =
                IndyPrelink.classBytes(RunCommand.class.getName(), NoLambdaOnRunPathTest.class.getClassLoader());
        assertThat(runCommand).isNotEmpty();
        assertThat(IndyPrelink.lambdaSites(runCommand))
                .as("a lambda or method reference added on the path of a cold run; write it as a loop, an"
                        + " instanceof test or a named or anonymous class (decision 0895)")
                .isLessThanOrEqualTo(KEPT_RUN_COMMAND);
    }
}
