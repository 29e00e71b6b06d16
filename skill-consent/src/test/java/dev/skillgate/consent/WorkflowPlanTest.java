package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.AGENT;
import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.WORKSPACE;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.Fixtures.FakeTicker;
import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** APPROVE_WORKFLOW_RUN: a bounded plan, approved once for one run, each step used once. */
class WorkflowPlanTest {
    private final FakeTicker ticker = new FakeTicker(0);
    private final ConsentLedger ledger =
            ConsentLedger.open(RUN, ticker, new MutableClock(Instant.parse("2026-11-30T12:00:00Z")));

    static PlannedStep step(SkillName skill) {
        return new PlannedStep(skill, Fixtures.REVISION, Optional.empty());
    }

    static WorkflowPlan plan(List<PlannedStep> steps) {
        return new WorkflowPlan(RUN, AGENT, WORKSPACE, steps);
    }

    private PlanSnapshot approvedPlan(List<PlannedStep> steps) {
        PlanSnapshot p = ledger.proposePlan(plan(steps)).orElseThrow();
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        return p;
    }

    @Test
    void withoutAnApprovedPlanNothingRuns() {
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
        PlanSnapshot pending = ledger.proposePlan(plan(List.of(step(SKILL)))).orElseThrow();
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
        ledger.decide(pending.id(), ApprovalDecision.deny("no")).orElseThrow();
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
    }

    @Test
    void eachStepIsUsedOnceThenThePlanIsConsumed() {
        PlanSnapshot p = approvedPlan(List.of(step(SKILL), step(SKILL)));
        WorkflowStepGrant first = ledger.consumePlanStep(SKILL, binding()).orElseThrow();
        WorkflowStepGrant second =
                ledger.consumePlanStep(SKILL, Fixtures.bindingWithInput("{}")).orElseThrow();
        assertThat(first.step()).isEqualTo(0);
        assertThat(second.step()).isEqualTo(1);
        assertThat(first.plan()).isEqualTo(p.id());
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
        assertThat(ledger.findPlan(p.id()).orElseThrow().state()).isEqualTo(ProposalState.CONSUMED);
        assertThat(ledger.findPlan(p.id()).orElseThrow().usedSteps()).containsExactly(0, 1);
    }

    @Test
    void aStepCoversOnlyItsSkillRevisionInputAgentAndWorkspace() {
        PlannedStep fixedInput = new PlannedStep(SKILL, Fixtures.REVISION, Optional.of(Fixtures.INPUT_DIGEST));
        approvedPlan(List.of(fixedInput));
        assertThat(ledger.consumePlanStep(SkillName.of("other"), binding()).code())
                .contains(ErrorCode.POLICY_NO_PLAN);
        assertThat(ledger.consumePlanStep(SKILL, Fixtures.bindingWithInput("{}"))
                        .code())
                .contains(ErrorCode.POLICY_NO_PLAN);
        ConsentBinding otherRevision = new ConsentBinding(
                AGENT,
                RUN,
                WORKSPACE,
                Fixtures.revision("edited"),
                Fixtures.INPUT_DIGEST,
                Fixtures.RUNTIME,
                dev.skillgate.model.Timeout.DEFAULT,
                dev.skillgate.model.OutputLimit.DEFAULT);
        assertThat(ledger.consumePlanStep(SKILL, otherRevision).code()).contains(ErrorCode.POLICY_NO_PLAN);
        ConsentBinding otherAgent = new ConsentBinding(
                AgentId.of("agent-2"),
                RUN,
                WORKSPACE,
                Fixtures.REVISION,
                Fixtures.INPUT_DIGEST,
                Fixtures.RUNTIME,
                dev.skillgate.model.Timeout.DEFAULT,
                dev.skillgate.model.OutputLimit.DEFAULT);
        assertThat(ledger.consumePlanStep(SKILL, otherAgent).code()).contains(ErrorCode.POLICY_NO_PLAN);
        assertThat(ledger.consumePlanStep(SKILL, Fixtures.binding(RunId.of("run-2")))
                        .code())
                .contains(ErrorCode.POLICY_NO_PLAN);
        assertThat(ledger.consumePlanStep(SKILL, binding()).isSuccess()).isTrue();
    }

    @Test
    void anApprovedPlanIsRunScopedNotWindowScopedButTheDecisionIsWindowed() {
        PlanSnapshot p = approvedPlan(List.of(step(SKILL)));
        ticker.advance(Limits.CONSENT_WINDOW_NANOS * 10);
        assertThat(ledger.consumePlanStep(SKILL, binding()).isSuccess()).isTrue();

        PlanSnapshot late = ledger.proposePlan(plan(List.of(step(SKILL)))).orElseThrow();
        ticker.advance(Limits.CONSENT_WINDOW_NANOS);
        assertThat(ledger.decide(late.id(), ApprovalDecision.approve(late.id())).code())
                .contains(ErrorCode.CONSENT_EXPIRED);
        assertThat(ledger.findPlan(p.id()).orElseThrow().state()).isEqualTo(ProposalState.CONSUMED);
    }

    @Test
    void aNewPlanStalesTheOldAndEndingTheRunCancelsIt() {
        PlanSnapshot old = approvedPlan(List.of(step(SKILL)));
        PlanSnapshot newer = approvedPlan(List.of(step(SKILL)));
        assertThat(ledger.findPlan(old.id()).orElseThrow().state()).isEqualTo(ProposalState.STALE);
        assertThat(ledger.endRun()).isEqualTo(1);
        assertThat(ledger.findPlan(newer.id()).orElseThrow().state()).isEqualTo(ProposalState.CANCELLED);
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
        assertThat(ledger.proposePlan(plan(List.of(step(SKILL)))).code()).contains(ErrorCode.CONSENT_CANCELLED);
    }

    @Test
    void plansAreBoundedAndCountTowardsTheProposalLimit() {
        assertThatThrownBy(() -> plan(List.of())).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> plan(Collections.nCopies(WorkflowPlan.MAX_STEPS + 1, step(SKILL))))
                .isInstanceOf(InvalidValueException.class);
        assertThat(plan(Collections.nCopies(WorkflowPlan.MAX_STEPS, step(SKILL)))
                        .steps())
                .hasSize(64);
        for (int i = 0; i < Limits.PROPOSALS_PER_RUN - 1; i++) {
            ledger.propose(SKILL, binding()).orElseThrow();
        }
        ledger.proposePlan(plan(List.of(step(SKILL)))).orElseThrow();
        assertThat(ledger.proposePlan(plan(List.of(step(SKILL)))).code()).contains(ErrorCode.PROPOSAL_LIMIT);
        assertThat(ledger.propose(SKILL, binding()).code()).contains(ErrorCode.PROPOSAL_LIMIT);
    }

    @Test
    void aPlanForAnotherRunIsRefused() {
        WorkflowPlan other = new WorkflowPlan(RunId.of("run-2"), AGENT, WORKSPACE, List.of(step(SKILL)));
        assertThat(ledger.proposePlan(other).code()).contains(ErrorCode.BINDING_MISMATCH);
    }

    @Test
    void aChannelThatCannotShowPlansDeniesThem() throws Exception {
        PlanSnapshot p = ledger.proposePlan(plan(List.of(step(SKILL)))).orElseThrow();
        ApprovalChannel invocationOnly = r -> java.util.concurrent.CompletableFuture.completedFuture(r.approve());
        ConsentResult<ProposalState> r = ledger.requestPlanApproval(WorkflowApprovalRequest.forPlan(p), invocationOnly)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(r.orElseThrow()).isEqualTo(ProposalState.DENIED);
        assertThat(ledger.consumePlanStep(SKILL, binding()).code()).contains(ErrorCode.POLICY_NO_PLAN);
    }

    @Test
    void aPlanApprovedThroughTheScriptedChannel() throws Exception {
        PlanSnapshot p = ledger.proposePlan(plan(List.of(step(SKILL)))).orElseThrow();
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ConsentResult<ProposalState> r = ledger.requestPlanApproval(WorkflowApprovalRequest.forPlan(p), channel)
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(r.orElseThrow()).isEqualTo(ProposalState.APPROVED);
        assertThat(channel.workflowRequests())
                .singleElement()
                .satisfies(w -> assertThat(w.fullTrustWarning()).isEqualTo(ApprovalRequest.FULL_TRUST_WARNING));
        assertThat(ledger.consumePlanStep(SKILL, binding()).isSuccess()).isTrue();
    }

    @Test
    void planIdsAreNotInvocationProposals() {
        PlanSnapshot p = approvedPlan(List.of(step(SKILL)));
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.UNKNOWN_PROPOSAL);
        assertThat(ledger.find(p.id())).isEmpty();
        assertThat(ledger.proposals()).isEmpty();
    }
}
