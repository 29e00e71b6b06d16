package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.consent.spi.PolicyStore;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
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
 * SPEC §8 "who may change policy and trust": starting from the types the engine exposes to agents
 * (the read-only view, the gates, the ledger and what they return), walk every public method and
 * constructor transitively and prove that no reachable type is, returns or accepts a policy
 * writer, and that no reachable public method writes policy, trust, safe mode or capabilities.
 */
class SeparationOfPowersTest {
    /** The types that can change policy or trust. */
    private static final Set<Class<?>> WRITERS =
            Set.of(PolicyAdmin.class, PolicyStore.class, PolicyUpdate.class, ControlState.class);

    /** What the agent-facing API may hand out (directly or through the engine). */
    private static final List<Class<?>> AGENT_FACING_ROOTS = List.of(
            PolicyView.class,
            LaunchGates.class,
            GateCheck.class,
            ConsentLedger.class,
            ProposalSnapshot.class,
            PlanSnapshot.class,
            ConsumedGrant.class,
            TrustedRevisionLaunch.class,
            WorkflowStepGrant.class,
            ExecuteCapability.class,
            ApprovalRequest.class);

    @Test
    void noAgentFacingTypeReachesAPolicyWriter() {
        Set<Class<?>> reachable = reachableTypes();
        assertThat(reachable).contains(PolicySnapshot.class, ScopeEntry.class, Receipt.class, TrustScope.class);
        assertThat(reachable).doesNotContainAnyElementsOf(WRITERS);
    }

    @Test
    void noReachablePublicMethodLooksLikeAWrite() {
        for (Class<?> type : reachableTypes()) {
            for (Method m : type.getMethods()) {
                if (m.getDeclaringClass() == Object.class) {
                    continue;
                }
                String name = m.getName();
                assertThat(name)
                        .as("%s.%s", type.getSimpleName(), name)
                        .doesNotStartWith("save")
                        .doesNotStartWith("grant")
                        .doesNotStartWith("revoke")
                        .doesNotStartWith("setSafeMode")
                        .doesNotStartWith("replace");
            }
        }
    }

    @Test
    void authorisationsAndCapabilitiesCannotBeConstructedOutsideTheModule() {
        for (Class<?> minted : List.of(
                ExecuteCapability.class,
                ConsumedGrant.class,
                TrustedRevisionLaunch.class,
                WorkflowStepGrant.class,
                PolicyView.class,
                LaunchGates.class)) {
            for (Constructor<?> c : minted.getDeclaredConstructors()) {
                assertThat(Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers()))
                        .as("%s has a public constructor", minted.getSimpleName())
                        .isFalse();
            }
            assertThat(Modifier.isFinal(minted.getModifiers())).isTrue();
        }
        assertThat(LaunchAuthorization.class.isSealed()).isTrue();
    }

    @Test
    void theViewKeepsItsStoreBehindAPrivateFieldOfAPackagePrivateType() {
        // The view must re-read the store, so it holds it — but only through a private final field
        // whose type no code outside this package can name or call.
        for (Field f : PolicyView.class.getDeclaredFields()) {
            assertThat(Modifier.isPrivate(f.getModifiers())).isTrue();
            assertThat(Modifier.isFinal(f.getModifiers())).isTrue();
            assertThat(Modifier.isPublic(f.getType().getModifiers()))
                    .as(f.getName())
                    .isFalse();
        }
        for (Method m : ControlState.class.getDeclaredMethods()) {
            assertThat(Modifier.isPublic(m.getModifiers())).as(m.getName()).isFalse();
        }
    }

    private static Set<Class<?>> reachableTypes() {
        Set<Class<?>> seen = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(AGENT_FACING_ROOTS);
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!type.getPackageName().startsWith("dev.skillgate") || !seen.add(type)) {
                continue;
            }
            Set<Type> mentioned = new HashSet<>();
            for (Method m : type.getMethods()) {
                mentioned.add(m.getGenericReturnType());
                mentioned.addAll(List.of(m.getGenericParameterTypes()));
            }
            for (Constructor<?> c : type.getConstructors()) {
                mentioned.addAll(List.of(c.getGenericParameterTypes()));
            }
            for (Type t : mentioned) {
                collect(t, todo);
            }
            for (Class<?> nested : type.getClasses()) {
                todo.push(nested);
            }
            if (type.isSealed()) {
                todo.addAll(List.of(type.getPermittedSubclasses()));
            }
        }
        return seen;
    }

    private static void collect(Type t, Deque<Class<?>> out) {
        if (t instanceof Class) {
            Class<?> c = (Class<?>) t;
            out.push(c.isArray() ? c.getComponentType() : c);
        } else if (t instanceof ParameterizedType) {
            collect(((ParameterizedType) t).getRawType(), out);
            for (Type arg : ((ParameterizedType) t).getActualTypeArguments()) {
                collect(arg, out);
            }
        } else if (t instanceof WildcardType) {
            for (Type b : ((WildcardType) t).getUpperBounds()) {
                collect(b, out);
            }
        }
    }
}
