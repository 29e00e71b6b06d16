package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Decision 0895: the code a cold {@code skillgate run --approve} runs is written without lambdas and
 * method references, because each such call site is linked through {@code java.lang.invoke} in every
 * fresh JVM (≈ 0.3 ms each). This reads the class files of the run command's parts and fails when a
 * {@code LambdaMetafactory} site is added back to one of them.
 */
class NoLambdaOnRunPathTest {
    /**
     * Each class and the sites it keeps: none on the path of a successful text run; the JSON
     * document's in {@code RunReport}, the {@code --approve} mismatch's in {@code TerminalApprovals},
     * and the version question's of {@code --node-sha256} in {@code RunRuntime}. One more fails.
     */
    @ParameterizedTest(name = "{0} keeps at most {1}")
    @CsvSource({
        "RunCommand, 0",
        "RunCommand$RunInGate, 0",
        "RunCommand$RunInGate$Header, 0",
        "RunCommand$StopOnSignal, 0",
        "RunOptions, 0",
        "RunRuntime$Answer, 0",
        "RunEvents, 0",
        "RunReport$Refusals, 0",
        "Interrupts, 0",
        "Interrupts$Relay, 0",
        "RunReport, 6",
        "TerminalApprovals, 1",
        "RunRuntime, 1",
    })
    void noNewLambdaSites(String simpleName, int kept) throws IOException {
        byte[] classFile = IndyPrelink.classBytes(
                RunCommand.class.getPackageName() + "." + simpleName, NoLambdaOnRunPathTest.class.getClassLoader());
        assertThat(classFile).as(simpleName + "'s class file").isNotEmpty();
        assertThat(IndyPrelink.lambdaSites(classFile))
                .as("a lambda or method reference added on the path of a cold run; write it as a loop, an"
                        + " instanceof test or a named or anonymous class (decision 0895)")
                .isLessThanOrEqualTo(kept);
    }
}
