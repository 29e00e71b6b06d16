package dev.skillgate.engine;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.engine.HostAgent.HoldingUi;
import dev.skillgate.engine.HostAgent.Shown;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stateful fuzzing of the engine's public calls with a real {@code node} (issue 24): Jazzer picks a
 * sequence of {@code executeAsync}, {@code execute} (from another thread), {@code cancel}, {@code activate},
 * {@code endRun}, {@code close} in the middle, pauses, and the host
 * UI's answers to the shown requests — its own approval, another request's approval, a denial — in
 * any order and from the test thread or another one, with a listener that throws an {@code Error}
 * when the input says so; the gate is closed at the end and every request still shown is then
 * approved. Checked: no launch without a {@code CONSUME} record of the identical binding of a
 * request that was approved with its own approval (per run, launches never outnumber consumptions);
 * every {@code CONSUME} has exactly one consent {@code SETTLE} after it (per run); every
 * {@code LATE_ANSWER} names a request that was shown; a listener failure never turns an outcome into {@code SUPERVISOR_DIED} or an
 * unproven cleanup; every outcome is delivered and every execution settles.
 *
 * <p>{@code mvn test} replays the seeds in {@code EngineFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * fuzzes (each input starts real processes: slow by design).
 */
class EngineFuzzTest {
    private static final AgentContext CONTEXT = AgentContext.of(
            "example-agent",
            SemVer.parse("1.5.0"),
            Set.of(InputType.TEXT, InputType.STRUCTURED_DATA),
            Set.of(ToolClass.AGENT_NATIVE),
            PermissionMode.READ_ONLY);
    private static final String[] AGENTS = {"a", "b"};

    private static Path skills;
    private static Path workspace;
    private static Path base;

    private static synchronized void prepare() throws IOException {
        if (skills == null) {
            base = Files.createTempDirectory("skillgate-engine-fuzz");
            skills = Files.createDirectories(base.resolve("skills"));
            workspace = Files.createDirectories(base.resolve("ws"));
            Support.copySkill(Support.examples().resolve("hello-world"), skills);
            Support.copySkill(Support.examples().resolve("release-notes"), skills);
        }
    }

    @FuzzTest(maxDuration = "120s")
    void noLaunchWithoutItsOwnConsumedGrantAndNoOutcomeChangedByACallback(FuzzedDataProvider data) throws Exception {
        prepare();
        boolean hostileListener = data.consumeBoolean();
        AtomicBoolean listenerThrew = new AtomicBoolean();
        ExecutionListener listener = event -> {
            if (hostileListener) {
                listenerThrew.set(true);
                throw new AssertionError("hostile listener: " + event.kind());
            }
        };
        HoldingUi ui = new HoldingUi();
        Path data0 = Files.createTempDirectory(base, "data");
        List<PendingExecution> executions = new ArrayList<>();
        List<RunId> runs = new ArrayList<>();
        List<CompletableFuture<Activation>> activations = new ArrayList<>();
        Set<Sha256Digest> approvedOwn = new HashSet<>();
        Set<Integer> answered = new HashSet<>();
        List<CompletableFuture<ExecutionEnvelope>> syncs = new ArrayList<>();
        List<RunId> syncRuns = new ArrayList<>();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data0)) {
            SkillGate gate = SkillGate.builder()
                    .admin(admin)
                    .skillRoot(skills)
                    .nodeRuntime(Support.runtime())
                    .approvalChannel(ui)
                    .listener(listener)
                    .approvalTimeout(Duration.ofSeconds(20))
                    .build();
            int steps = data.consumeInt(1, 12);
            for (int i = 0; i < steps && data.remainingBytes() > 0; i++) {
                // One byte: 0-245 keep the first nine operations (b % 9, as the crafted seeds were written),
                // 246-250 the synchronous execute, 251-255 a close in the middle.
                int b = data.consumeInt(0, 255);
                int op = b >= 251 ? 10 : b >= 246 ? 9 : b % 9;
                switch (op) {
                    case 0 -> {
                        if (executions.size() < 4) {
                            RunId run = runs.isEmpty() || data.consumeBoolean()
                                    ? RunId.random()
                                    : runs.get(data.consumeInt(0, runs.size() - 1));
                            runs.add(run);
                            executions.add(gate.executeAsync(ExecutionRequest.of(
                                    run,
                                    AgentId.of(AGENTS[data.consumeInt(0, 1)]),
                                    "hello-world",
                                    "{\"name\":\"f" + i + "\"}",
                                    workspace)));
                        }
                    }
                    case 1 -> {
                        if (!executions.isEmpty()) {
                            executions
                                    .get(data.consumeInt(0, executions.size() - 1))
                                    .cancel();
                        }
                    }
                    case 2, 3, 4, 5 -> {
                        int shownNow = ui.shownCount();
                        if (shownNow == 0 && !executions.isEmpty()) {
                            // Give a started execution the chance to ask.
                            Thread.sleep(300);
                            shownNow = ui.shownCount();
                        }
                        if (shownNow > 0) {
                            List<Shown> shown = ui.awaitShown(shownNow);
                            int which = data.consumeInt(0, shown.size() - 1);
                            Shown target = shown.get(which);
                            Shown other = shown.get(data.consumeInt(0, shown.size() - 1));
                            boolean async = op == 5;
                            var answer = switch (op) {
                                case 2, 5 -> target.approval();
                                case 3 -> other.approval();
                                default ->
                                    ((Object) target.request() instanceof ApprovalRequest r)
                                            ? r.deny("fuzz")
                                            : ((dev.skillgate.consent.ActivationApprovalRequest) target.request())
                                                    .deny("fuzz");
                            };
                            if (answer.answers(idOf(target)) && answer.isApproval() && answered.add(which)) {
                                if (target.request() instanceof ApprovalRequest r) {
                                    approvedOwn.add(r.binding().digest());
                                }
                            } else {
                                answered.add(which);
                            }
                            if (async) {
                                CompletableFuture.runAsync(() -> target.answer().complete(answer));
                            } else {
                                target.answer().complete(answer);
                            }
                        }
                    }
                    case 6 -> {
                        if (activations.size() < 2) {
                            activations.add(CompletableFuture.supplyAsync(
                                    () -> gate.activate(AgentId.of("example-agent-1.5"), "release-notes", CONTEXT)));
                        }
                    }
                    case 7 -> {
                        if (!runs.isEmpty()) {
                            gate.endRun(runs.get(data.consumeInt(0, runs.size() - 1)));
                        }
                    }
                    case 9 -> {
                        // The synchronous call, from another thread (it blocks until the outcome).
                        if (executions.size() + syncs.size() < 5) {
                            RunId run = runs.isEmpty() || data.consumeBoolean()
                                    ? RunId.random()
                                    : runs.get(data.consumeInt(0, runs.size() - 1));
                            runs.add(run);
                            AgentId agent = AgentId.of(AGENTS[data.consumeInt(0, 1)]);
                            String input = "{\"name\":\"s" + i + "\"}";
                            syncRuns.add(run);
                            syncs.add(CompletableFuture.supplyAsync(() ->
                                    gate.execute(ExecutionRequest.of(run, agent, "hello-world", input, workspace))));
                        }
                    }
                    case 10 -> {
                        // Close in the middle: every later call meets a closed gate.
                        DrainReport early = gate.close(Duration.ofSeconds(90));
                        check(early.complete(), "an early drain left executions unsettled: " + early);
                    }
                    default -> Thread.sleep(1500); // let launches happen before what comes next
                }
            }
            DrainReport report = gate.close(Duration.ofSeconds(90));
            check(report.complete(), "the drain left executions unsettled: " + report);
            // A host that answers after close launches nothing.
            for (Shown s : ui.awaitShown(ui.shownCount())) {
                s.answer().complete(s.approval());
            }
            for (PendingExecution p : executions) {
                ExecutionEnvelope delivered = p.outcome().toCompletableFuture().get(60, TimeUnit.SECONDS);
                ExecutionEnvelope settled = p.settlement().toCompletableFuture().get(60, TimeUnit.SECONDS);
                check(!delivered.errorCodes().contains(ErrorCode.SUPERVISOR_DIED), "outcome changed: " + delivered);
                check(!settled.errorCodes().contains(ErrorCode.SUPERVISOR_DIED), "settlement changed: " + settled);
                if (settled.status() != ExecutionStatus.REFUSED) {
                    check(settled.cleanup().status() == CleanupStatus.PROVEN, "unproven cleanup: " + settled);
                }
            }
            List<ExecutionEnvelope> syncOutcomes = new ArrayList<>();
            for (CompletableFuture<ExecutionEnvelope> f : syncs) {
                ExecutionEnvelope delivered = f.get(60, TimeUnit.SECONDS); // a value, never an exception
                check(!delivered.errorCodes().contains(ErrorCode.SUPERVISOR_DIED), "outcome changed: " + delivered);
                syncOutcomes.add(delivered);
            }
            for (CompletableFuture<Activation> a : activations) {
                a.get(60, TimeUnit.SECONDS); // a value, never an exception
            }
            List<AuditEvent> events = admin.trust().records(0, 10_000).stream()
                    .map(AuditRecord::event)
                    .toList();
            // Per run: every CONSUME is followed by exactly one consent SETTLE, and no SETTLE comes first.
            Map<RunId, Integer> consumes = new HashMap<>();
            Map<RunId, Integer> settles = new HashMap<>();
            for (AuditEvent e : events) {
                if (e instanceof AuditEvent.Consumed c) {
                    check(approvedOwn.contains(c.binding()), "a grant was consumed that no own approval covered");
                    consumes.merge(c.run(), 1, Integer::sum);
                } else if (e instanceof AuditEvent.Settled st
                        && st.authority() == AuditEvent.Settled.Authority.CONSENT) {
                    int n = settles.merge(st.run(), 1, Integer::sum);
                    check(n <= consumes.getOrDefault(st.run(), 0), "a consent settlement without its consumption");
                } else if (e instanceof AuditEvent.LateAnswer late) {
                    check(shownIds(ui).contains(late.id()), "a late answer to a request that was never shown");
                }
            }
            check(consumes.equals(settles), "consumptions " + consumes + " but consent settlements " + settles);
            Set<RunId> consumedRuns = consumes.keySet();
            long launched = executions.stream()
                            .map(p -> p.settlement().toCompletableFuture().getNow(null))
                            .filter(env -> env.cleanup().status() != CleanupStatus.NOT_STARTED)
                            .count()
                    + syncOutcomes.stream()
                            .filter(env -> env.cleanup().status() != CleanupStatus.NOT_STARTED)
                            .count();
            System.out.println("engine fuzz: " + executions.size() + " executions, " + syncs.size() + " synchronous, "
                    + launched + " launched, "
                    + consumedRuns.size() + " consumed, " + activations.size() + " activations, listener threw: "
                    + listenerThrew.get());
            // No launch without a consumed grant: per run, launches never outnumber its CONSUME records.
            Map<RunId, Integer> launches = new HashMap<>();
            for (PendingExecution p : executions) {
                ExecutionEnvelope settled = p.settlement().toCompletableFuture().getNow(null);
                if (settled.status() != ExecutionStatus.REFUSED
                        || settled.cleanup().status() != CleanupStatus.NOT_STARTED) {
                    check(consumedRuns.contains(p.run()), "a launch without a CONSUME record: " + settled);
                    launches.merge(p.run(), 1, Integer::sum);
                }
            }
            for (int k = 0; k < syncOutcomes.size(); k++) {
                ExecutionEnvelope delivered = syncOutcomes.get(k);
                if (delivered.status() != ExecutionStatus.REFUSED
                        || delivered.cleanup().status() != CleanupStatus.NOT_STARTED) {
                    launches.merge(syncRuns.get(k), 1, Integer::sum);
                }
            }
            launches.forEach((run, n) -> check(
                    n <= consumes.getOrDefault(run, 0), "run " + run + " launched " + n + " times, consumed fewer"));
        } finally {
            Support.deleteTree(data0);
        }
    }

    private static Set<String> shownIds(HoldingUi ui) {
        Set<String> ids = new HashSet<>();
        try {
            for (Shown s : ui.awaitShown(ui.shownCount())) {
                ids.add(idOf(s).toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ids;
    }

    private static dev.skillgate.consent.ProposalId idOf(Shown s) {
        if (s.request() instanceof ApprovalRequest r) {
            return r.proposal();
        }
        return ((dev.skillgate.consent.ActivationApprovalRequest) s.request()).id();
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
