package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversarial scripts through the whole engine. The extension fails any test after which a process
 * carrying its marker survives, so each of these also shows that the tree is gone.
 */
@EnabledOnOs(OS.LINUX)
class AdversarialFixturesTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    private void run(NodeFixture fixture, int timeoutMs) {
        skillgate.bundle("adversary").fixture(fixture).timeoutMs(timeoutMs).write();
        skillgate.approvals().approveNext();
    }

    @Test
    void aScriptIgnoringSigtermTimesOutAndItsTreeIsGone() {
        run(NodeFixture.IGNORE_SIGTERM, 1000);
        assertThat(skillgate.execute("adversary", "{}"))
                .hasStatus(ExecutionStatus.TIMED_OUT)
                .hasErrorCodes(ErrorCode.EXEC_TIMEOUT)
                .hasCleanupProven();
    }

    @Test
    void aDetachedGrandchildRejectsTheRunEvenThoughItWasKilled() {
        run(NodeFixture.DETACH_WRITE_LATER, 10_000);
        String marker = skillgate.workspace().resolve("late-marker").toString().replace("\\", "\\\\");
        assertThat(skillgate.execute("adversary", "{\"marker\":\"" + marker + "\",\"delayMs\":1500}"))
                .hasStatus(ExecutionStatus.FAILED)
                .hasErrorCode(ErrorCode.DETACHED_DESCENDANTS)
                .hasCleanupProven();
    }

    @Test
    void aStdoutFloodEndsAsOutputLimit() {
        run(NodeFixture.FLOOD_STDOUT, 10_000);
        assertThat(skillgate.execute("adversary", "{}"))
                .hasStatus(ExecutionStatus.OUTPUT_LIMIT)
                .hasCleanupProven();
    }

    @Test
    void twoJsonValuesAreNotAResult() {
        run(NodeFixture.TWO_JSON_VALUES, 10_000);
        assertThat(skillgate.execute("adversary", "{}"))
                .hasStatus(ExecutionStatus.FAILED)
                .hasErrorCode(ErrorCode.OUTPUT_NOT_JSON);
    }

    @Test
    void aNonZeroExitWithValidJsonFails() {
        run(NodeFixture.NONZERO_VALID_JSON, 10_000);
        assertThat(skillgate.execute("adversary", "{}"))
                .hasStatus(ExecutionStatus.FAILED)
                .hasErrorCodes(ErrorCode.EXEC_NONZERO_EXIT);
    }
}
