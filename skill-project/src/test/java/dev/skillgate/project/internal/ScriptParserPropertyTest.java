package dev.skillgate.project.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorGroup;
import dev.skillgate.project.ProjectStep;
import dev.skillgate.project.ScriptVerdict;
import dev.skillgate.project.StepForm;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Property test over generated scripts (a seeded random walk over an alphabet of real and hostile
 * tokens): every supported script is exact argv with the invariants below; every refusal is named.
 */
class ScriptParserPropertyTest {
    private static final List<String> TOKENS = List.of(
            "node",
            "--test",
            "tsc",
            "--project",
            "tsconfig.json",
            "a.test.js",
            "b.test.mjs",
            "dist/c.test.js",
            "build.js",
            "src/x.cjs",
            "npm",
            "run",
            "npx",
            "install",
            "&&",
            ";",
            "|",
            "A=1",
            "*.test.js",
            "../x.js",
            "-x.test.js",
            "--watch",
            "'q'",
            "$X",
            "~/x",
            "a\\b",
            "é.js",
            "",
            " ",
            "\t",
            "node_modules/y.js",
            "./a.test.js",
            "/abs.js",
            "(x)",
            ">o",
            "serve",
            "--inspect",
            "x.test.js",
            "test/a.test.js");

    /** The invariants of a verdict for {@code source}. */
    static void checkInvariants(String source, ScriptVerdict verdict) {
        if (verdict instanceof ScriptVerdict.Supported s) {
            ProjectStep step = s.step();
            assertThat(source)
                    .matches("[ -~]+")
                    .doesNotContain("  ")
                    .doesNotStartWith(" ")
                    .doesNotEndWith(" ");
            for (char c : "&|;*?[]{}'\"`$<>\\()~#!%^=".toCharArray()) {
                if (c != '=' || step.form() != StepForm.TSC_PROJECT) {
                    assertThat(source.indexOf(c)).as("'%s' in %s", c, source).isNegative();
                }
            }
            assertThat(source).startsWith(step.form() == StepForm.TSC_PROJECT ? "tsc " : "node ");
            List<String> paths = step.arguments().stream()
                    .filter(a -> !a.equals("--") && !a.equals("--test") && !a.equals("--project"))
                    .toList();
            assertThat(paths).isNotEmpty();
            for (String p : paths) {
                assertThat(p).doesNotStartWith("-").doesNotStartWith("/").doesNotStartWith(".");
                assertThat(List.of(p.split("/"))).doesNotContain("..", ".", "");
            }
            if (step.form() == StepForm.NODE_TEST) {
                assertThat(paths).hasSizeBetween(1, 8).allMatch(p -> p.endsWith(".test.js") || p.endsWith(".test.mjs"));
            }
        } else {
            ScriptVerdict.Refused r = (ScriptVerdict.Refused) verdict;
            assertThat(r.reason().code().group()).isEqualTo(ErrorGroup.PROJECT);
            assertThat(r.reason().message()).isNotBlank();
        }
    }

    @Test
    void generatedScriptsKeepTheInvariants() {
        Random random = new Random(19);
        int supported = 0;
        for (int i = 0; i < 20_000; i++) {
            int n = 1 + random.nextInt(5);
            StringBuilder b = new StringBuilder(
                    List.of("", "node ", "node --test ", "tsc --project ").get(random.nextInt(4)));
            for (int j = 0; j < n; j++) {
                if (j > 0 || b.length() > 0 && random.nextInt(10) == 0) {
                    b.append(random.nextInt(10) == 0 ? "  " : " ");
                }
                b.append(TOKENS.get(random.nextInt(TOKENS.size())));
            }
            String name = random.nextBoolean() ? "test" : "build";
            ScriptVerdict v =
                    ScriptParser.parse(name, b.toString(), Set.of(name), ScriptParserFuzzTest.EVERYTHING_EXISTS);
            checkInvariants(b.toString(), v);
            if (v instanceof ScriptVerdict.Supported) {
                supported++;
            }
        }
        // The generator reaches the supported forms, not only refusals.
        assertThat(supported).isGreaterThan(100);
    }

    @Test
    void lifecycleNamesAreHooks() {
        assertThat(ScriptParser.isHook("pretest", Set.of("test"))).isTrue();
        assertThat(ScriptParser.isHook("posttest", Set.of())).isTrue();
        assertThat(ScriptParser.isHook("prebuild", Set.of("build"))).isTrue();
        assertThat(ScriptParser.isHook("prettier", Set.of("test"))).isFalse();
        assertThat(ScriptParser.isHook("prepare", Set.of())).isTrue();
        assertThat(ScriptParser.isHook("postinstall", Set.of())).isTrue();
    }
}
