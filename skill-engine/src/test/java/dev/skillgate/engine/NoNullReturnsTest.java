package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Calls every public no-argument instance method of representative engine values: none returns null. */
class NoNullReturnsTest {
    private static final Set<String> SKIPPED = Set.of("hashCode", "close", "cancel", "await", "markClosed");

    @TempDir
    Path tmp;

    @Test
    void noPublicNoArgMethodReturnsNull() throws Exception {
        Path skills = Files.createDirectories(tmp.resolve("skills"));
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        SkillGateAdmin admin = SkillGateAdmin.open(tmp.resolve("data"));
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        try (SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .approvalChannel(channel)
                .build()) {
            PendingExecution pending =
                    gate.executeAsync(ExecutionRequest.of(RunId.random(), AgentId.of("a"), "no-such-skill", "{}", tmp));
            pending.await();
            List<Object> samples = new ArrayList<>(List.of(
                    gate,
                    admin,
                    admin.trust(),
                    gate.supervisor(),
                    gate.catalog().get(0),
                    gate.inspect("hello-world"),
                    gate.inspect("no-such-skill"),
                    pending,
                    ExecutionRequest.of(RunId.random(), AgentId.of("a"), "hello-world", "{}", tmp),
                    new DrainReport(1, 0, List.of(RunId.of("r")), Duration.ZERO),
                    new UnresolvedExecution(
                            RunId.of("r"),
                            Optional.empty(),
                            Optional.empty(),
                            Instant.EPOCH,
                            Optional.empty(),
                            UnresolvedExecution.State.RETAINED_ON_DISK),
                    new Activation.Refused(
                            SkillName.of("x"), List.of(Diagnostic.error(ErrorCode.SKILL_NOT_FOUND, "", "x"))),
                    new Activation.Activated(
                            SkillName.of("x"),
                            Revision.parse("sha256:" + "0".repeat(64)),
                            Optional.empty(),
                            "text",
                            false),
                    new ExecutionEvent(
                            RunId.of("r"), SkillName.of("x"), ExecutionEvent.Kind.REFUSED, List.of(), Optional.empty()),
                    new SkillGateAdmin.Resolution(RunId.of("r"), true, false, List.of())));
            int calls = 0;
            for (Object sample : samples) {
                for (Method method : sample.getClass().getMethods()) {
                    if (method.getParameterCount() != 0
                            || Modifier.isStatic(method.getModifiers())
                            || method.getReturnType() == void.class
                            || method.getDeclaringClass() == Object.class
                            || SKIPPED.contains(method.getName())) {
                        continue;
                    }
                    Object result = method.invoke(sample);
                    assertThat(result)
                            .as("%s.%s", sample.getClass().getSimpleName(), method.getName())
                            .isNotNull();
                    calls++;
                }
            }
            assertThat(calls).isGreaterThan(50);
        } finally {
            admin.close();
        }
    }
}
