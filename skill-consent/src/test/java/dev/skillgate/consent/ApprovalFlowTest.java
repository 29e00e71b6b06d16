package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.Fixtures.FakeTicker;
import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ledger driving a real (scripted) channel: the human's answer is the only way to approval. */
class ApprovalFlowTest {
    private final FakeTicker ticker = new FakeTicker(0);
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
    private final ConsentLedger ledger = ConsentLedger.open(RUN, ticker, clock);

    private static ConsentResult<ProposalState> await(CompletionStage<ConsentResult<ProposalState>> stage)
            throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void approvalThroughTheChannelThenConsume() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        ConsentResult<ProposalState> result = await(ledger.requestApproval(Fixtures.request(p), channel));
        assertThat(result.orElseThrow()).isEqualTo(ProposalState.APPROVED);
        assertThat(channel.requests()).hasSize(1);
        ApprovalRequest shown = channel.requests().get(0);
        assertThat(shown.fullTrustWarning()).isEqualTo("runs as your user with your files and network; not a sandbox");
        assertThat(shown.enforcement().isolation()).isEqualTo("none");
        assertThat(shown.binding()).isEqualTo(binding());
        assertThat(ledger.consume(p.id(), binding()).isSuccess()).isTrue();
    }

    @Test
    void denialThroughTheChannel() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().denyNext("no");
        assertThat(await(ledger.requestApproval(Fixtures.request(p), channel)).orElseThrow())
                .isEqualTo(ProposalState.DENIED);
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_DENIED);
    }

    @Test
    void anEmptyScriptIsADenial() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        assertThat(await(ledger.requestApproval(Fixtures.request(p), ScriptedApprovalChannel.denyingWhenEmpty()))
                        .orElseThrow())
                .isEqualTo(ProposalState.DENIED);
    }

    @Test
    void aClosedChannelIsADenial() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        CompletionStage<ConsentResult<ProposalState>> pending = ledger.requestApproval(Fixtures.request(p), channel);
        assertThat(Fixtures.awaitHeld(channel, 1)).isEqualTo(1);
        channel.close();
        assertThat(await(pending).orElseThrow()).isEqualTo(ProposalState.DENIED);
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_DENIED);
    }

    @Test
    void aThrowingChannelIsADenial() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalChannel throwing = r -> {
            throw new IllegalStateException("ui crashed");
        };
        assertThat(await(ledger.requestApproval(Fixtures.request(p), throwing)).orElseThrow())
                .isEqualTo(ProposalState.DENIED);
    }

    @Test
    void aFailedStageOrNullAnswerIsADenial() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalChannel failing = r -> CompletableFuture.failedFuture(new java.io.IOException("socket closed"));
        assertThat(await(ledger.requestApproval(Fixtures.request(p), failing)).orElseThrow())
                .isEqualTo(ProposalState.DENIED);
        ProposalSnapshot q = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalChannel nullAnswer = r -> CompletableFuture.completedFuture(null);
        assertThat(await(ledger.requestApproval(Fixtures.request(q), nullAnswer))
                        .orElseThrow())
                .isEqualTo(ProposalState.DENIED);
        ProposalSnapshot s = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalChannel nullStage = r -> null;
        assertThat(await(ledger.requestApproval(Fixtures.request(s), nullStage)).orElseThrow())
                .isEqualTo(ProposalState.DENIED);
    }

    @Test
    void theFailClosedGuardTimesOutToADenial() throws Exception {
        ScriptedApprovalChannel holding = ScriptedApprovalChannel.holdingWhenEmpty();
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalDecision decision = ApprovalChannel.failClosed(holding, Duration.ofMillis(50))
                .request(Fixtures.request(p))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(decision)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class, d -> assertThat(d.code()).isEqualTo(ErrorCode.CONSENT_TIMEOUT));
        // a late approval after the timeout does not change the guarded answer
        holding.approveNext();
        assertThat(decision.isApproval()).isFalse();
    }

    @Test
    void theGuardedStageCannotBeCompletedByItsReceiver() {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        CompletionStage<ApprovalDecision> stage = ApprovalChannel.failClosed(
                        ScriptedApprovalChannel.holdingWhenEmpty(), Duration.ofSeconds(30))
                .request(Fixtures.request(p));
        stage.toCompletableFuture().complete(ApprovalDecision.approve(p.id())); // completes a copy only
        assertThat(stage.toCompletableFuture().isDone()).isFalse();
    }

    @Test
    void aWaitingApprovalEndsAtOnceWhenItsProposalIsStaledCancelledOrTheRunEnds() throws Exception {
        // SPEC §8: a newer proposal stales, cancel and ending the run cancel "everything outstanding" —
        // including a request the human has not answered yet; its waiter must not hang until the timeout.
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        ProposalSnapshot staled = ledger.propose(SKILL, binding()).orElseThrow();
        CompletionStage<ConsentResult<ProposalState>> first = ledger.requestApproval(Fixtures.request(staled), channel);
        ProposalSnapshot cancelled = ledger.propose(SKILL, binding()).orElseThrow();
        assertThat(await(first).code()).contains(ErrorCode.CONSENT_STALE);

        CompletionStage<ConsentResult<ProposalState>> second =
                ledger.requestApproval(Fixtures.request(cancelled), channel);
        assertThat(ledger.cancel(cancelled.id()).isSuccess()).isTrue();
        assertThat(await(second).code()).contains(ErrorCode.CONSENT_CANCELLED);

        ProposalSnapshot ended = ledger.propose(SKILL, binding()).orElseThrow();
        CompletionStage<ConsentResult<ProposalState>> third = ledger.requestApproval(Fixtures.request(ended), channel);
        assertThat(ledger.endRun()).isEqualTo(1);
        assertThat(await(third).code()).contains(ErrorCode.CONSENT_CANCELLED);

        // The human's late answers change nothing.
        assertThat(Fixtures.awaitHeld(channel, 3)).isEqualTo(3);
        channel.approveNext();
        channel.approveNext();
        channel.approveNext();
        for (ProposalSnapshot p : List.of(staled, cancelled, ended)) {
            assertThat(ledger.find(p.id()).orElseThrow().state().isTerminal()).isTrue();
            assertThat(ledger.consume(p.id(), binding()).isSuccess()).isFalse();
        }
        channel.close();
    }

    @Test
    void anAnswerAfterTheWindowIsExpired() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        CompletionStage<ConsentResult<ProposalState>> pending = ledger.requestApproval(Fixtures.request(p), channel);
        ticker.advance(Limits.CONSENT_WINDOW_NANOS);
        channel.approveNext();
        assertThat(await(pending).code()).contains(ErrorCode.CONSENT_EXPIRED);
        assertThat(ledger.find(p.id()).orElseThrow().state()).isEqualTo(ProposalState.EXPIRED);
    }

    @Test
    void aRequestMustDescribeTheProposedBinding() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ProposalSnapshot forged = new ProposalSnapshot(
                p.id(), p.skill(), Fixtures.bindingWithInput("{\"x\":1}"), p.state(), p.createdAt(), p.expiresAt());
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        assertThat(await(ledger.requestApproval(Fixtures.request(forged), channel))
                        .code())
                .contains(ErrorCode.BINDING_MISMATCH);
        assertThat(channel.requests()).isEmpty();
        assertThat(ledger.find(p.id()).orElseThrow().state()).isEqualTo(ProposalState.PENDING);
    }

    @Test
    void aRequestForAnUnknownOrDecidedProposalIsNotSent() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ConsentLedger restarted = ConsentLedger.open(RUN, ticker, clock);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        assertThat(await(restarted.requestApproval(Fixtures.request(p), channel))
                        .code())
                .contains(ErrorCode.UNKNOWN_PROPOSAL);
        ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
        assertThat(await(ledger.requestApproval(Fixtures.request(p), channel)).code())
                .contains(ErrorCode.DUPLICATE_DECISION);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void theLedgerKeepsNoInvocationTextAfterTheDecision() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalRequest request = Fixtures.request(p);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        await(ledger.requestApproval(request, channel));
        ledger.consume(p.id(), binding()).orElseThrow();
        Set<Object> reachable = reachableFrom(ledger);
        assertThat(reachable).noneMatch(o -> o instanceof ApprovalRequest || o instanceof InvocationPreview);
        assertThat(reachable)
                .filteredOn(o -> o instanceof String)
                .noneMatch(s -> ((String) s).contains("secret-argument-value"));
        assertThat(reachable).contains(binding().invocationDigest());
    }

    /** Every object reachable from {@code root} through fields, collections and maps. */
    static Set<Object> reachableFrom(Object root) throws IllegalAccessException {
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Object> todo = new java.util.LinkedList<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Object o = todo.pop();
            if (o == null || !seen.add(o)) {
                continue;
            }
            if (o instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                    todo.push(e.getKey());
                    todo.push(e.getValue());
                }
                continue;
            }
            if (o instanceof Collection) {
                ((Collection<?>) o).forEach(todo::push);
                continue;
            }
            if (o instanceof java.util.Optional) {
                ((java.util.Optional<?>) o).ifPresent(todo::push);
                continue;
            }
            String pkg = o.getClass().getPackageName();
            if (!pkg.startsWith("dev.skillgate")) {
                continue; // JDK leaf (String, Path, UUID, Instant, ...) — kept in the set, not walked
            }
            for (Class<?> c = o.getClass();
                    c != null && c.getPackageName().startsWith("dev.skillgate");
                    c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    f.setAccessible(true);
                    todo.push(f.get(o));
                }
            }
        }
        return seen;
    }
}
