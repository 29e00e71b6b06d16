package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Hostile bundles are refused before anyone is asked, with a specific code, and nothing runs. */
@EnabledOnOs(OS.LINUX)
class HostileBundlesTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @Test
    void aLinkedEntrypointIsNeverFollowed() throws Exception {
        Path outside = Files.writeString(
                skillgate.workspace().resolve("outside.mjs"), "process.stdout.write('{}')", StandardCharsets.UTF_8);
        skillgate.bundle("linked").symlink("scripts/run.mjs", outside).write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("linked", "{}"))
                .wasRefusedWith(ErrorCode.EXECUTION_UNAVAILABLE)
                .hasErrorCode(ErrorCode.READ_LINK);
        assertThat(skillgate.approvals().requests()).isEmpty();
    }

    @Test
    void aFifoIsNeverOpened() {
        skillgate
                .bundle("fifo")
                .fixture(NodeFixture.ECHO_MJS)
                .fifo("scripts/pipe.txt")
                .write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("fifo", "{}"))
                .wasRefusedWith(ErrorCode.EXECUTION_UNAVAILABLE)
                .hasErrorCode(ErrorCode.READ_NOT_REGULAR);
    }

    @Test
    void traversalInTheManifestIsRejected() {
        skillgate
                .bundle("traversal")
                .fixture(NodeFixture.ECHO_MJS)
                .declare("../outside.mjs")
                .write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("traversal", "{}"))
                .wasRefusedWith(ErrorCode.EXECUTION_UNAVAILABLE)
                .hasErrorCode(ErrorCode.PATH_TRAVERSAL);
    }

    @Test
    void aFileOneByteOverTheBoundIsRefused() {
        skillgate
                .bundle("big")
                .fixture(NodeFixture.ECHO_MJS)
                .oversized("scripts/big.js", 1024 * 1024 + 1)
                .write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("big", "{}"))
                .wasRefusedWith(ErrorCode.EXECUTION_UNAVAILABLE)
                .hasErrorCode(ErrorCode.READ_TOO_LARGE);
    }

    @Test
    void invalidUtf8InSkillMdMakesTheSkillUnloadable() {
        byte[] skillMd = "---\nname: bad\ndescription: x\n---\n\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        skillgate
                .bundle("bad")
                .fixture(NodeFixture.ECHO_MJS)
                .rawSkillMd(skillMd)
                .write();
        assertThat(skillgate.gate().catalog()).isEmpty();
        assertThat(skillgate.execute("bad", "{}")).wasRefusedWith(ErrorCode.SKILL_NOT_FOUND);
    }

    @Test
    void aPythonEntrypointIsAnUnsupportedRuntime() {
        skillgate.bundle("python").script("scripts/run.py", "print('{}')").write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("python", "{}"))
                .wasRefusedWith(ErrorCode.EXECUTION_UNAVAILABLE)
                .hasErrorCode(ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME);
    }
}
