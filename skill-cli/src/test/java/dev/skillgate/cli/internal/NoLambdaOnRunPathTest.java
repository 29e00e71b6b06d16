package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Decision 0895: the code a cold {@code skillgate run --approve} runs is written without lambdas and
 * method references, because each such call site is linked through {@code java.lang.invoke} in every
 * fresh JVM (≈ 0.3 ms each). This reads the class files of the classes rewritten and fails when a
 * {@code LambdaMetafactory} site is added back. A class may keep the sites of its error paths, which a
 * successful run never links; their number is fixed here, so one more is a failure.
 */
class NoLambdaOnRunPathTest {
    /** The lambda sites RunCommand keeps (see below); one more fails. */
    private static final int KEPT_RUN_COMMAND = 23;

    /** Each rewritten class and the lambda sites it keeps on paths a successful run does not take. */
    private static final Map<String, Integer> REWRITTEN = new LinkedHashMap<>();

    static {
        // RunCommand keeps 23: those of its refusals and of the JSON document (a successful text run
        // takes neither), and 12 that a successful run still links and that are still to do (the
        // runtime answer, the interrupt handler, printEnvelope, the finally's staging check).
        REWRITTEN.put("dev.skillgate.cli.internal.RunCommand", KEPT_RUN_COMMAND);
    }

    @Test
    void theRewrittenClassesHaveNoLambdaSitesOnTheRunPath() throws IOException {
        for (Map.Entry<String, Integer> e : REWRITTEN.entrySet()) {
            assertThat(IndyPrelink.lambdaSites(bytes(e.getKey())))
                    .as(
                            "%s: lambda or method reference added on the path of a cold run; write it as a loop,"
                                    + " an instanceof test or a named/anonymous class (decision 0895)",
                            e.getKey())
                    .isLessThanOrEqualTo(e.getValue());
        }
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in =
                NoLambdaOnRunPathTest.class.getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }
}
