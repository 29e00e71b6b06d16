package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.inspect.shared.ContractCheck;
import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.util.Optional;
import java.util.Set;

/**
 * Fuzzes {@code skill.contract.json} bytes through the strict parser and, for accepted contracts,
 * the enforcement check: never an exception, a rejection always has an error with a bounded
 * message, an accepted contract keeps the digest of the exact bytes and satisfies its own
 * invariants, and the check is a pure function (same answer twice). Runs its seeds in regression
 * mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class ContractFuzzTest {
    private static final String[] DIRECTORIES = {"read-only-review", "x", "Bad_Dir"};

    @FuzzTest(maxDuration = "30s")
    void anyBytesGiveAVerdict(FuzzedDataProvider data) {
        String directory = DIRECTORIES[data.consumeInt(0, DIRECTORIES.length - 1)];
        Optional<String> namespace = data.consumeBoolean() ? Optional.of("global") : Optional.empty();
        byte[] bytes = data.consumeRemainingAsBytes();
        ContractVerdict verdict = ContractParser.parse(bytes, directory, namespace);
        for (Diagnostic d : verdict.problems()) {
            assertThat(d.message().codePointCount(0, d.message().length()))
                    .isLessThanOrEqualTo(Diagnostic.MAX_MESSAGE_LENGTH + 1);
            assertThat(d.code().name()).startsWith("CONTRACT_");
        }
        if (verdict instanceof ContractVerdict.Rejected rejected) {
            assertThat(rejected.diagnostics()).anyMatch(Diagnostic::isError);
            return;
        }
        assertThat(verdict).isInstanceOf(ContractVerdict.Accepted.class);
        ContractVerdict.Accepted accepted = (ContractVerdict.Accepted) verdict;
        assertThat(accepted.sha256()).isEqualTo(Sha256Digest.hash(bytes));
        SkillContract c = accepted.contract();
        assertThat(c.identity().directoryName()).isEqualTo(directory);
        namespace.ifPresent(ns -> assertThat(c.identity().namespace()).isEqualTo(ns));
        assertThat(c.agents()).isNotEmpty();
        AgentContext context = new AgentContext(
                c.agents().get(0).kind(),
                c.agents().get(0).minVersion(),
                Set.of(InputType.values()),
                Set.of(ToolClass.values()),
                PermissionMode.FULL_ACCESS,
                Set.copyOf(c.credentials()));
        assertThat(ContractCheck.check(c, context, Optional.of(name -> true))).isEmpty();
        AgentContext poor = AgentContext.of("zz", SemVer.parse("0.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);
        assertThat(ContractCheck.check(c, poor))
                .isEqualTo(ContractCheck.check(c, poor))
                .isNotEmpty();
    }
}
