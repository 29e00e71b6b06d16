package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.consent.spi.PolicyStore;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Calls every public no-argument instance method of representative consent values: none returns null. */
class NoNullReturnsTest {
    @TempDir
    Path tmp;

    @Test
    void noPublicNoArgMethodReturnsNull() throws Exception {
        PolicyAdmin admin = PolicyAdmin.open(PolicyStore.privateFile(tmp));
        ExecuteCapability capability = admin.grantExecuteCapability("t");
        PolicyChange change = admin.save(
                        new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(PolicyFixtures.scope())))
                .orElseThrow();
        GateCheck check = admin.view().launchGates().check(Optional.of(capability), Fixtures.SKILL, Fixtures.binding());
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN);
        ProposalSnapshot p = ledger.propose(Fixtures.SKILL, Fixtures.binding()).orElseThrow();
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        ConsumedGrant grant = ledger.consume(p.id(), Fixtures.binding()).orElseThrow();
        PlanSnapshot plan = ledger.proposePlan(WorkflowPlanTest.plan(List.of(WorkflowPlanTest.step(Fixtures.SKILL))))
                .orElseThrow();
        ledger.decide(plan.id(), ApprovalDecision.approve(plan.id())).orElseThrow();
        WorkflowStepGrant step =
                ledger.consumePlanStep(Fixtures.SKILL, Fixtures.binding()).orElseThrow();
        ApprovalRequest request = Fixtures.request(
                ledger.propose(Fixtures.SKILL, Fixtures.binding()).orElseThrow());
        List<Object> samples = new ArrayList<>(List.of(
                admin.view(),
                admin.currentPolicy(),
                change,
                change.after().scopes().get(0),
                change.after().scopes().get(0).receipt().orElseThrow(),
                check,
                check.trustedLaunch().orElseThrow(),
                capability,
                ledger,
                p,
                grant,
                plan,
                plan.plan(),
                plan.plan().steps().get(0),
                step,
                request,
                request.artifact(),
                request.artifact().files().get(0),
                request.invocation(),
                request.enforcement(),
                WorkflowApprovalRequest.forPlan(plan),
                ApprovalDecision.approve(p.id()),
                ApprovalDecision.deny("no"),
                ConsentResult.success(1),
                ConsentResult.failure(dev.skillgate.model.ErrorCode.UNKNOWN_PROPOSAL, "x"),
                PolicyLoad.absent(),
                PolicySettings.DEFAULT,
                PolicyUpdate.of(ExecutionPolicy.BLOCKED),
                ScriptedApprovalChannel.denyingWhenEmpty()));
        int calls = 0;
        for (Object sample : samples) {
            for (Method method : sample.getClass().getMethods()) {
                if (method.getParameterCount() != 0
                        || Modifier.isStatic(method.getModifiers())
                        || method.getReturnType() == void.class
                        || method.getDeclaringClass() == Object.class
                        || method.getName().equals("hashCode")
                        || method.getName().equals("orElseThrow")
                        || method.getName().equals("endRun")
                        || method.getName().equals("abortRun")) {
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
        assertThat(calls).isGreaterThan(80);
    }
}
