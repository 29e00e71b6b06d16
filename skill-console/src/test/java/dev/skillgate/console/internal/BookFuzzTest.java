package dev.skillgate.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stateful fuzzing of the console's request book: Jazzer picks a sequence of operations (add a
 * request for one of three runs and two skills, approve or deny any of them, move the monotonic
 * clock by 0, W−1, W or W+1, cancel a run, render the view, close) and every outcome is compared
 * with a small reference model. Directly asserted: a decision is accepted only for a pending request
 * before its deadline, each request's answer completes once and is an approval exactly when an
 * approve was accepted, and a request that left {@code PENDING} never changes again.
 *
 * <p>{@code mvn test} replays the seeds in {@code BookFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class BookFuzzTest {
    private static final long W = Duration.ofSeconds(60).toNanos();
    private static final RunId[] RUNS = {RunId.of("run-a"), RunId.of("run-b"), RunId.of("run-c")};
    private static final String[] SKILLS = {"alpha", "beta"};

    private static final class Model {
        final String id;
        final int run;
        final int skill;
        final long deadline;
        final CompletableFuture<ApprovalDecision> answer;
        String state = "PENDING";

        Model(String id, int run, int skill, long deadline, CompletableFuture<ApprovalDecision> answer) {
            this.id = id;
            this.run = run;
            this.skill = skill;
            this.deadline = deadline;
            this.answer = answer;
        }
    }

    private static ApprovalRequest request(int run, int skill) {
        byte[] source = {1, 2, 3};
        Revision revision = new Revision(Sha256Digest.hash(source));
        Sha256Digest digest = Sha256Digest.hash(new byte[] {4});
        ConsentBinding binding = new ConsentBinding(
                AgentId.of("agent"),
                RUNS[run],
                new WorkspaceIdentity(Path.of("/tmp"), "k"),
                revision,
                digest,
                new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.0.0", Optional.empty()),
                Timeout.ofMillis(10_000),
                OutputLimit.ofBytes(1024));
        Instant now = Instant.parse("2026-12-01T00:00:00Z");
        return new ApprovalRequest(
                ProposalId.random(),
                SkillName.of(SKILLS[skill]),
                binding,
                new ArtifactDescription(
                        revision,
                        List.of(new ArtifactDescription.FileEntry(
                                PortablePath.of("a.mjs"), 3, Sha256Digest.hash(source))),
                        PortablePath.of("a.mjs"),
                        () -> "x"),
                new InvocationPreview("{}", digest),
                List.of("/usr/bin/node", "a.mjs"),
                Enforcement.standard(binding.timeout(), binding.outputLimit()),
                now,
                now.plus(Duration.ofMinutes(5)));
    }

    @FuzzTest(maxDuration = "30s")
    void noSequenceDecidesTwiceDecidesLateOrRevivesAnEndedRequest(FuzzedDataProvider data) {
        AtomicLong nanos = new AtomicLong(data.consumeLong());
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            Book book = new Book(
                    Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC),
                    nanos::get,
                    Duration.ofNanos(W),
                    timer);
            List<Model> model = new ArrayList<>();
            boolean closed = false;
            int steps = data.consumeInt(0, 300);
            for (int step = 0; step < steps && data.remainingBytes() > 0; step++) {
                switch (data.consumeInt(0, 6)) {
                    case 0, 1 -> {
                        int run = data.consumeInt(0, RUNS.length - 1);
                        int skill = data.consumeInt(0, SKILLS.length - 1);
                        ApprovalRequest r = request(run, skill);
                        CompletableFuture<ApprovalDecision> answer = book.add(
                                        r.proposal().toString(),
                                        Book.Kind.EXECUTION,
                                        r,
                                        Display.NODES.objectNode(),
                                        Optional.of(r.run()),
                                        r.skill().value(),
                                        Optional.of(r.binding()),
                                        () -> "x",
                                        Optional.empty())
                                .toCompletableFuture();
                        if (closed) {
                            assertThat(answer.getNow(null)).isNotNull();
                            assertThat(answer.getNow(null).isApproval()).isFalse();
                            break;
                        }
                        for (Model m : model) {
                            expireIfDue(m, nanos.get());
                            if (m.state.equals("PENDING") && m.run == run && m.skill == skill) {
                                m.state = "STALE";
                            }
                        }
                        model.add(new Model(r.proposal().toString(), run, skill, nanos.get() + W, answer));
                    }
                    case 2 -> {
                        if (model.isEmpty()) {
                            break;
                        }
                        Model m = model.get(data.consumeInt(0, model.size() - 1));
                        boolean approve = data.consumeBoolean();
                        expireIfDue(m, nanos.get());
                        Book.Decided d = book.decide(m.id, approve).orElseThrow();
                        if (m.state.equals("PENDING")) {
                            m.state = approve ? "APPROVED" : "DENIED";
                            assertThat(d.accepted()).isTrue();
                        } else {
                            assertThat(d.accepted()).isFalse();
                        }
                        assertThat(d.state()).isEqualTo(m.state);
                    }
                    case 3 -> {
                        long[] moves = {0, W - 1, W, W + 1, 1};
                        nanos.addAndGet(moves[data.consumeInt(0, moves.length - 1)]);
                    }
                    case 4 -> {
                        int run = data.consumeInt(0, RUNS.length - 1);
                        int expected = 0;
                        for (Model m : model) {
                            expireIfDue(m, nanos.get());
                            if (m.state.equals("PENDING") && m.run == run) {
                                m.state = "CANCELLED";
                                expected++;
                            }
                        }
                        assertThat(book.cancel(RUNS[run])).isEqualTo(expected);
                    }
                    case 5 -> {
                        var view = book.view();
                        for (Model m : model) {
                            expireIfDue(m, nanos.get());
                        }
                        for (var r : view.path("requests")) {
                            Model m = model.stream()
                                    .filter(x -> x.id.equals(r.path("id").asString()))
                                    .findFirst()
                                    .orElseThrow();
                            assertThat(r.path("state").asString()).isEqualTo(m.state);
                        }
                    }
                    default -> {
                        if (data.consumeInt(0, 9) == 0) {
                            book.close();
                            closed = true;
                            for (Model m : model) {
                                expireIfDue(m, nanos.get());
                                if (m.state.equals("PENDING")) {
                                    m.state = "CANCELLED";
                                }
                            }
                        }
                    }
                }
                for (Model m : model) {
                    ApprovalDecision a = m.answer.getNow(null);
                    if (m.state.equals("PENDING")) {
                        assertThat(a).isNull();
                    } else if (!m.state.equals("EXPIRED") || a != null) {
                        // An expiry the book has not observed yet completes on its next look.
                        assertThat(a).as(m.state).isNotNull();
                        assertThat(a.isApproval()).isEqualTo(m.state.equals("APPROVED"));
                    }
                }
            }
        } finally {
            timer.shutdownNow();
        }
    }

    private static void expireIfDue(Model m, long now) {
        if (m.state.equals("PENDING") && now - m.deadline >= 0) {
            m.state = "EXPIRED";
        }
    }
}
