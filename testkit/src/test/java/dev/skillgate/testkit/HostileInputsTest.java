package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Hostile invocations are refused by the protocol before anyone is asked. */
@EnabledOnOs(OS.LINUX)
class HostileInputsTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @BeforeEach
    void echo() {
        skillgate.bundle("echo").fixture(NodeFixture.ECHO_MJS).write();
        skillgate.approvals().approveNext();
    }

    @Test
    void deepJsonIsRefused() {
        assertThat(skillgate.execute("echo", Inputs.deepJson(33))).wasRefusedWith(ErrorCode.JSON_DEPTH);
        assertThat(skillgate.approvals().requests()).isEmpty();
    }

    @Test
    void anInvocationOneByteOverTheBoundIsRefusedAndOneAtTheBoundIsNot() {
        assertThat(skillgate.execute("echo", Inputs.tooLarge())).wasRefusedWith(ErrorCode.JSON_TOO_LARGE);
        assertThat(skillgate.approvals().requests()).isEmpty();
        skillgate.bundle("small").fixture(NodeFixture.ECHO_MJS).write();
        // At the bound the input is valid; the echo then overflows the default 64 KiB stdout bound.
        assertThat(skillgate.execute("small", Inputs.ofSize(65_536))).hasErrorCode(ErrorCode.OUTPUT_LIMIT);
    }

    @Test
    void invalidUtf8ABomDuplicateKeysAndTwoValuesAreRefused() {
        assertThat(skillgate.execute("echo", Inputs.invalidUtf8())).wasRefusedWith(ErrorCode.JSON_INVALID_UTF8);
        assertThat(skillgate.execute("echo", Inputs.withBom())).wasRefusedWith(ErrorCode.JSON_BOM);
        assertThat(skillgate.execute("echo", Inputs.duplicateKey())).wasRefusedWith(ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(skillgate.execute("echo", Inputs.twoValues())).wasRefusedWith(ErrorCode.JSON_TRAILING_DATA);
        assertThat(skillgate.approvals().requests()).isEmpty();
    }
}
