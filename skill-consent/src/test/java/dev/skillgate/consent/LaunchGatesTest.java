package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static dev.skillgate.consent.PolicyFixtures.scope;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Timeout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The three independent gates, over a real policy file. */
class LaunchGatesTest {
    @TempDir
    Path tmp;

    private PolicyAdmin admin;
    private LaunchGates gates;
    private ExecuteCapability capability;

    @BeforeEach
    void setUp() {
        admin = PolicyAdmin.open(PolicyStore.privateFile(tmp.resolve("data")));
        gates = admin.view().launchGates();
        capability = admin.grantExecuteCapability("agent tool");
    }

    private static List<ErrorCode> codes(GateCheck check) {
        return check.failures().stream().map(Diagnostic::code).collect(Collectors.toList());
    }

    static Stream<Arguments> everyCombination() {
        List<Arguments> out = new ArrayList<>();
        for (boolean cap : new boolean[] {true, false}) {
            for (boolean safe : new boolean[] {true, false}) {
                for (boolean blocked : new boolean[] {true, false}) {
                    out.add(Arguments.of(cap, safe, blocked));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "capability={0} safeMode={1} blocked={2}")
    @MethodSource("everyCombination")
    void everyGateIsCheckedAndReportedIndependently(boolean holdsCapability, boolean safeMode, boolean blocked) {
        admin.setSafeMode(safeMode);
        admin.save(PolicyUpdate.of(blocked ? ExecutionPolicy.BLOCKED : ExecutionPolicy.ASK_EACH_TIME))
                .orElseThrow();
        GateCheck check = gates.check(holdsCapability ? Optional.of(capability) : Optional.empty(), SKILL, binding());
        List<ErrorCode> expected = new ArrayList<>();
        if (!holdsCapability) {
            expected.add(ErrorCode.GATE_CAPABILITY_MISSING);
        }
        if (safeMode) {
            expected.add(ErrorCode.GATE_SAFE_MODE);
        }
        if (blocked) {
            expected.add(ErrorCode.POLICY_BLOCKED);
        }
        assertThat(codes(check)).containsExactlyElementsOf(expected);
        assertThat(check.allowed()).isEqualTo(expected.isEmpty());
        assertThat(check.route())
                .isEqualTo(expected.isEmpty() ? GateCheck.Route.ASK_EACH_TIME : GateCheck.Route.REFUSED);
    }

    @Test
    void aRevokedOrForeignCapabilityIsMissing() {
        ExecuteCapability foreign =
                PolicyAdmin.open(PolicyStore.privateFile(tmp.resolve("other"))).grantExecuteCapability("other host");
        assertThat(codes(gates.check(Optional.of(foreign), SKILL, binding())))
                .containsExactly(ErrorCode.GATE_CAPABILITY_MISSING);
        assertThat(admin.revokeExecuteCapability(capability)).isTrue();
        assertThat(codes(gates.check(Optional.of(capability), SKILL, binding())))
                .containsExactly(ErrorCode.GATE_CAPABILITY_MISSING);
        assertThat(admin.revokeExecuteCapability(capability)).isFalse();
    }

    @Test
    void aTrustedRevisionNeverImpliesTheOtherGates() {
        admin.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(scope())))
                .orElseThrow();
        GateCheck trusted = gates.check(Optional.of(capability), SKILL, binding());
        assertThat(trusted.route()).isEqualTo(GateCheck.Route.TRUSTED_REVISION);
        TrustedRevisionLaunch launch = trusted.trustedLaunch().orElseThrow();
        assertThat(launch.binding()).isEqualTo(binding());
        assertThat(launch.scope()).isEqualTo(scope());

        admin.setSafeMode(true);
        assertThat(codes(gates.check(Optional.of(capability), SKILL, binding())))
                .containsExactly(ErrorCode.GATE_SAFE_MODE);
        assertThat(codes(gates.check(Optional.empty(), SKILL, binding())))
                .containsExactly(ErrorCode.GATE_CAPABILITY_MISSING, ErrorCode.GATE_SAFE_MODE);
    }

    @Test
    void trustedModeOutsideEveryApprovedScopeNeedsPerInvocationConsent() {
        admin.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(scope())))
                .orElseThrow();
        ConsentBinding tooLong = new ConsentBinding(
                Fixtures.AGENT,
                Fixtures.RUN,
                Fixtures.WORKSPACE,
                Fixtures.REVISION,
                Fixtures.INPUT_DIGEST,
                Fixtures.RUNTIME,
                new Timeout(Timeout.DEFAULT_MILLIS + 1),
                OutputLimit.DEFAULT);
        ConsentBinding otherRevision = new ConsentBinding(
                Fixtures.AGENT,
                Fixtures.RUN,
                Fixtures.WORKSPACE,
                Fixtures.revision("edited"),
                Fixtures.INPUT_DIGEST,
                Fixtures.RUNTIME,
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
        for (ConsentBinding b : List.of(tooLong, otherRevision)) {
            GateCheck check = gates.check(Optional.of(capability), SKILL, b);
            assertThat(check.route()).isEqualTo(GateCheck.Route.ASK_EACH_TIME);
            assertThat(check.trustedLaunch()).isEmpty();
        }
        // any other valid input to the same scope is covered
        assertThat(gates.check(Optional.of(capability), SKILL, Fixtures.bindingWithInput("{\"other\":true}"))
                        .route())
                .isEqualTo(GateCheck.Route.TRUSTED_REVISION);
    }

    @Test
    void workflowModeRoutesToThePlan() {
        admin.save(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN)).orElseThrow();
        assertThat(gates.check(Optional.of(capability), SKILL, binding()).route())
                .isEqualTo(GateCheck.Route.WORKFLOW_PLAN);
    }

    @Test
    void aCorruptPolicyFileIsAFailingPolicyGate() throws IOException {
        admin.save(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME)).orElseThrow();
        Files.writeString(tmp.resolve("data/policy.json"), "{ not json");
        GateCheck check = gates.check(Optional.of(capability), SKILL, binding());
        assertThat(codes(check)).containsExactly(ErrorCode.POLICY_CORRUPT);
        assertThat(check.policy().mode()).isEqualTo(ExecutionPolicy.BLOCKED);
    }

    @Test
    void recheckSeesAPolicyBlockedAfterTheFirstCheck() {
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN);
        assertThat(gates.check(Optional.of(capability), SKILL, binding()).allowed())
                .isTrue();
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        ConsumedGrant grant = ledger.consume(p.id(), binding()).orElseThrow();
        assertThat(gates.recheck(Optional.of(capability), grant).route()).isEqualTo(GateCheck.Route.CONFIRMED);

        // another admin instance (e.g. the settings UI in the same process) blocks via the same file
        PolicyAdmin.open(PolicyStore.privateFile(tmp.resolve("data")))
                .save(PolicyUpdate.of(ExecutionPolicy.BLOCKED))
                .orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), grant))).containsExactly(ErrorCode.POLICY_BLOCKED);
    }

    @Test
    void recheckSeesSafeModeAndRevocation() {
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN);
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        ConsumedGrant grant = ledger.consume(p.id(), binding()).orElseThrow();
        admin.setSafeMode(true);
        assertThat(codes(gates.recheck(Optional.of(capability), grant))).containsExactly(ErrorCode.GATE_SAFE_MODE);
        admin.setSafeMode(false);
        admin.revokeExecuteCapability(capability);
        assertThat(codes(gates.recheck(Optional.of(capability), grant)))
                .containsExactly(ErrorCode.GATE_CAPABILITY_MISSING);
    }

    @Test
    void aRevokedOrChangedScopeFailsTheRecheck() {
        admin.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(scope())))
                .orElseThrow();
        TrustedRevisionLaunch launch = gates.check(Optional.of(capability), SKILL, binding())
                .trustedLaunch()
                .orElseThrow();
        assertThat(gates.recheck(Optional.of(capability), launch).allowed()).isTrue();

        // removed then re-added: same scope, but a new receipt — the old authorisation is gone
        admin.save(PolicyUpdate.of(ExecutionPolicy.TRUST_SELECTED_REVISIONS)).orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), launch))).containsExactly(ErrorCode.POLICY_CHANGED);
        admin.save(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.of(scope())))
                .orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), launch))).containsExactly(ErrorCode.POLICY_CHANGED);

        // the mode changes while the scope stays: trust no longer applies
        TrustedRevisionLaunch fresh = gates.check(Optional.of(capability), SKILL, binding())
                .trustedLaunch()
                .orElseThrow();
        admin.save(new PolicyUpdate(ExecutionPolicy.ASK_EACH_TIME, List.of(scope())))
                .orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), fresh))).containsExactly(ErrorCode.POLICY_CHANGED);
    }

    @Test
    void aWorkflowStepNeedsWorkflowModeAtRecheck() {
        admin.save(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN)).orElseThrow();
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN);
        PlanSnapshot plan = ledger.proposePlan(WorkflowPlanTest.plan(List.of(WorkflowPlanTest.step(SKILL))))
                .orElseThrow();
        ledger.decide(plan.id(), ApprovalDecision.approve(plan.id())).orElseThrow();
        WorkflowStepGrant step = ledger.consumePlanStep(SKILL, binding()).orElseThrow();
        assertThat(gates.recheck(Optional.of(capability), step).allowed()).isTrue();
        admin.save(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME)).orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), step))).containsExactly(ErrorCode.POLICY_CHANGED);
    }

    @Test
    void aConsumedGrantNeedsAModeThatAsksAtRecheck() {
        // SPEC §8: the policy is re-read before every launch; in APPROVE_WORKFLOW_RUN nothing runs
        // without a plan, so a per-invocation grant from before the switch no longer admits a launch.
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN);
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        ConsumedGrant grant = ledger.consume(p.id(), binding()).orElseThrow();
        admin.save(PolicyUpdate.of(ExecutionPolicy.TRUST_SELECTED_REVISIONS)).orElseThrow();
        assertThat(gates.recheck(Optional.of(capability), grant).allowed())
                .as("outside every scope, trusted-revision mode asks: the grant still stands")
                .isTrue();
        admin.save(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN)).orElseThrow();
        assertThat(codes(gates.recheck(Optional.of(capability), grant))).containsExactly(ErrorCode.POLICY_CHANGED);
        admin.save(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME)).orElseThrow();
        assertThat(gates.recheck(Optional.of(capability), grant).allowed()).isTrue();
    }
}
