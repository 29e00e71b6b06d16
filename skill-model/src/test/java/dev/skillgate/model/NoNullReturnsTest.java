package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Calls every public no-argument instance method of a representative instance of each value type
 * and checks that none returns {@code null} (SPEC §16: no public method returns null).
 */
class NoNullReturnsTest {

    private static List<Object> samples() {
        Revision revision = ValueTypesTest.REVISION;
        SemVer v = SemVer.parse("1.0.0-rc.1+b");
        SkillContract contract = new SkillContract(
                new SkillContract.Identity("acme/pdf-fill", v),
                new SkillContract.Origin(OriginType.SIGNED, Optional.of("Acme")),
                List.of(new AgentRequirement("codex", SemVer.parse("1.0.0"), SemVer.parse("2.0.0"))),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.NETWORK),
                List.of(),
                PermissionMode.FULL_ACCESS,
                List.of(NetworkDestination.parse("https://example.com:8443")),
                SideEffectClass.EXTERNAL_WRITE);
        ExecutionEnvelope refused = ExecutionEnvelope.refused(
                RunId.of("r"),
                Optional.of(revision),
                Duration.ofMillis(3),
                List.of(Diagnostic.error(ErrorCode.POLICY_BLOCKED, "", "blocked")));
        return List.of(
                SkillName.of("pdf-fill"),
                PortablePath.of("scripts/run.mjs"),
                revision,
                revision.digest(),
                new Timeout(5_000),
                new OutputLimit(10),
                ValueTypesTest.manifest("run.mjs", List.of("run.mjs")),
                contract,
                contract.identity(),
                contract.origin(),
                contract.agents().get(0),
                contract.networkDestinations().get(0),
                v,
                refused,
                refused.cleanup(),
                CleanupReport.unknown(2, true, Optional.of(Path.of("/tmp/x"))),
                ProcessExit.code(3),
                ProcessExit.signal(15),
                ProcessExit.notObserved(),
                Diagnostic.warning(ErrorCode.KEYS_HOST_EXTENSION, "", "preserved"),
                RunId.random(),
                AgentId.of("a"),
                new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.2", Optional.of(revision.digest())),
                new WorkspaceIdentity(Path.of("/work"), "(dev=1,ino=2)"),
                new InvalidValueException(ErrorCode.USAGE, "x"));
    }

    @Test
    void noPublicNoArgMethodReturnsNull() throws Exception {
        int calls = 0;
        for (Object sample : samples()) {
            for (Method method : sample.getClass().getMethods()) {
                if (method.getParameterCount() != 0
                        || Modifier.isStatic(method.getModifiers())
                        || method.getReturnType() == void.class
                        || method.getDeclaringClass() == Object.class
                        || method.getDeclaringClass() == Throwable.class
                        || method.getName().equals("hashCode")) {
                    continue;
                }
                method.setAccessible(true);
                Object result = method.invoke(sample);
                assertThat(result)
                        .as("%s.%s()", sample.getClass().getSimpleName(), method.getName())
                        .isNotNull();
                calls++;
            }
        }
        for (ErrorCode code : ErrorCode.values()) {
            assertThat(code.group()).isNotNull();
            assertThat(code.summary()).isNotNull();
        }
        assertThat(calls).isGreaterThan(60);
    }
}
