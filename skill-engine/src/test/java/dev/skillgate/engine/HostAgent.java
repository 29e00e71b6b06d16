package dev.skillgate.engine;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.RunId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Test doubles for issue 24: a careless host's approval UI that holds every request until the test
 * answers it (in any order, with any request's decision, from any thread), and a pushy agent that
 * drives the public {@link SkillGate} API as hard as it can.
 */
final class HostAgent {
    private HostAgent() {}

    /** One request on the host's screen and the future the UI completes. */
    record Shown(Object request, CompletableFuture<ApprovalDecision> answer) {
        ApprovalDecision approval() {
            if (request instanceof ApprovalRequest r) {
                return r.approve();
            }
            return ((ActivationApprovalRequest) request).approve();
        }
    }

    /** A host UI that shows requests and lets the test answer them however it likes. */
    static final class HoldingUi implements ApprovalChannel {
        private final List<Shown> shown = new ArrayList<>();

        @Override
        public synchronized CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            return hold(request);
        }

        @Override
        public synchronized CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
            return hold(request);
        }

        private CompletionStage<ApprovalDecision> hold(Object request) {
            CompletableFuture<ApprovalDecision> f = new CompletableFuture<>();
            shown.add(new Shown(request, f));
            notifyAll();
            return f;
        }

        /** Waits (generously) until {@code n} requests were shown and returns them, oldest first. */
        synchronized List<Shown> awaitShown(int n) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (shown.size() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("only " + shown.size() + " of " + n + " requests were shown");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return List.copyOf(shown);
        }

        synchronized int shownCount() {
            return shown.size();
        }
    }

    /** A pushy agent: asks for runs as fast as the gate lets it, in fresh runs each time. */
    static final class PushyAgent {
        private final SkillGate gate;
        private final AgentId agent;
        private final Path workspace;

        PushyAgent(SkillGate gate, AgentId agent, Path workspace) {
            this.gate = gate;
            this.agent = agent;
            this.workspace = workspace;
        }

        /** Starts {@code n} executions of {@code skill}, each in a fresh run. */
        List<PendingExecution> flood(String skill, int n) {
            List<PendingExecution> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(gate.executeAsync(
                        ExecutionRequest.of(RunId.random(), agent, skill, "{\"name\":\"p" + i + "\"}", workspace)));
            }
            return out;
        }
    }
}
