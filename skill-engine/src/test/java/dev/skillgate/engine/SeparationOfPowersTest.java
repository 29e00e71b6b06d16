package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.ProcessSupervisor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The agent-facing {@link SkillGate} has no write path (SPEC §8, "who may change policy and
 * trust"): walking every public instance method of a gate and everything reachable from what they
 * return or accept, no type is or leads to a policy or trust writer, a process launcher or the
 * consent ledger, and no reachable method looks like a write.
 */
class SeparationOfPowersTest {
    private static final Set<Class<?>> FORBIDDEN = Set.of(
            SkillGateAdmin.class,
            TrustAdmin.class,
            SkillGate.Builder.class,
            PolicyAdmin.class,
            PolicyStore.class,
            PolicyUpdate.class,
            AuditLog.class,
            ConsentLedger.class,
            ExecuteCapability.class,
            ProcessSupervisor.class,
            NodeRunner.class,
            LaunchSpec.class,
            // Workflow plans are host-verified: submitted on the admin only.
            dev.skillgate.consent.WorkflowPlan.class,
            dev.skillgate.engine.internal.WorkflowPlans.class);

    @Test
    void nothingReachableFromAGateWritesPolicyTrustOrStartsProcessesOutsideConsent() {
        Set<Class<?>> reachable = reachable();
        assertThat(reachable)
                .contains(
                        SkillSummary.class,
                        PendingExecution.class,
                        SupervisorSelection.class,
                        UnresolvedExecution.class,
                        dev.skillgate.model.ExecutionEnvelope.class);
        assertThat(reachable).doesNotContainAnyElementsOf(FORBIDDEN);
    }

    @Test
    void noReachablePublicMethodLooksLikeAWrite() {
        for (Class<?> type : reachable()) {
            Set<String> accessors = new HashSet<>();
            if (type.isRecord()) {
                for (var c : type.getRecordComponents()) {
                    accessors.add(c.getName()); // a record's accessors read its own immutable state
                }
            }
            for (Method m : publicInstanceMethods(type)) {
                if (accessors.contains(m.getName()) && m.getParameterCount() == 0) {
                    continue;
                }
                assertThat(m.getName())
                        .as("%s.%s", type.getSimpleName(), m.getName())
                        .doesNotStartWith("save")
                        .doesNotStartWith("grant")
                        .doesNotStartWith("revoke")
                        .doesNotStartWith("trust")
                        .doesNotStartWith("approve")
                        .doesNotStartWith("setSafeMode")
                        .isNotEqualTo("resolve")
                        .doesNotStartWith("launch")
                        .doesNotStartWith("repair")
                        .doesNotStartWith("proposePlan")
                        .doesNotContainIgnoringCase("workflow");
            }
        }
    }

    @Test
    void pendingExecutionsAreMintedOnlyByTheGate() {
        for (Constructor<?> c : PendingExecution.class.getDeclaredConstructors()) {
            assertThat(Modifier.isPublic(c.getModifiers())).isFalse();
        }
        assertThat(Modifier.isFinal(SkillGate.class.getModifiers())).isTrue();
        assertThat(SkillGate.class.getConstructors()).isEmpty();
    }

    private static List<Method> publicInstanceMethods(Class<?> type) {
        return List.of(type.getMethods()).stream()
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> m.getDeclaringClass() != Object.class)
                .toList();
    }

    private static Set<Class<?>> reachable() {
        Set<Class<?>> seen = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        todo.push(SkillGate.class);
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!type.getPackageName().startsWith("dev.skillgate") || !seen.add(type)) {
                continue;
            }
            Set<Type> mentioned = new HashSet<>();
            for (Method m : publicInstanceMethods(type)) {
                mentioned.add(m.getGenericReturnType());
                mentioned.addAll(List.of(m.getGenericParameterTypes()));
            }
            if (type != SkillGate.class) {
                for (Constructor<?> c : type.getConstructors()) {
                    mentioned.addAll(List.of(c.getGenericParameterTypes()));
                }
                for (Class<?> nested : type.getClasses()) {
                    todo.push(nested);
                }
            }
            for (Type t : mentioned) {
                collect(t, todo);
            }
            if (type.isSealed()) {
                todo.addAll(List.of(type.getPermittedSubclasses()));
            }
        }
        return seen;
    }

    private static void collect(Type t, Deque<Class<?>> out) {
        if (t instanceof Class<?> c) {
            out.push(c.isArray() ? c.getComponentType() : c);
        } else if (t instanceof ParameterizedType p) {
            collect(p.getRawType(), out);
            for (Type arg : p.getActualTypeArguments()) {
                collect(arg, out);
            }
        } else if (t instanceof WildcardType w) {
            for (Type b : w.getUpperBounds()) {
                collect(b, out);
            }
        }
    }
}
