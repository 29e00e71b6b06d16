package dev.skillgate.project.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.PortablePath;
import dev.skillgate.project.ScriptVerdict;
import java.util.Optional;
import java.util.Set;

/**
 * Fuzzes {@link ScriptParser}: whatever the script text, a supported verdict holds only exact ASCII
 * relative path tokens without shell syntax, and a refusal always carries a {@code PROJECT_*} code.
 * Runs its seed corpus in regression mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class ScriptParserFuzzTest {

    static final ScriptParser.Context EVERYTHING_EXISTS = new ScriptParser.Context() {
        @Override
        public boolean isSourceFile(PortablePath path) {
            return true;
        }

        @Override
        public PortablePath outputDirectory() {
            return PortablePath.of("dist");
        }

        @Override
        public Optional<Diagnostic> checkTsconfig(PortablePath path) {
            return Optional.empty();
        }

        @Override
        public boolean hasTypescript() {
            return true;
        }
    };

    @FuzzTest(maxDuration = "30s")
    void supportedScriptsAreExactArgvAndRefusalsAreNamed(FuzzedDataProvider data) {
        String name = data.pickValue(new String[] {"test", "build", "test:unit", "build:ts", "lint", "pretest"});
        String source = data.consumeRemainingAsString();
        ScriptVerdict verdict = ScriptParser.parse(name, source, Set.of(name), EVERYTHING_EXISTS);
        ScriptParserPropertyTest.checkInvariants(source, verdict);
        if (verdict instanceof ScriptVerdict.Refused r) {
            assertThat(r.reason().code().group()).isEqualTo(ErrorGroup.PROJECT);
        }
    }
}
