package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The gate's catalog (decision 0805) through the facade, with real {@code node}: between two
 * executes a skill is added, removed, renamed, or replaced by another directory of the same name
 * with the root's modification time restored — the replacement's bytes are what the human approves
 * and what runs; a removed or renamed-away name is {@code SKILL_NOT_FOUND}. Under concurrent
 * executes while the root changes, every launch runs exactly the revision that was approved.
 */
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class ExecuteCatalogTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    /** Above the catalog's racily-clean margin (2 s): a tree older than this is trusted by identity. */
    private static final long OLDER_THAN_MARGIN_MILLIS = 2_300;

    private SkillGateAdmin admin;
    private SkillGate gate;
    private final Map<RunId, Revision> approved = new ConcurrentHashMap<>();
    private Path outside;

    @BeforeEach
    void open() throws IOException {
        admin = SkillGateAdmin.open(data);
        outside = Files.createDirectories(skills.resolveSibling(skills.getFileName() + "-outside"));
        gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .maxApprovalRequestsPerAgentPerMinute(1000)
                .maxPendingApprovalsPerAgent(64)
                .approvalChannel(new Recording())
                .build();
    }

    @AfterEach
    void close() throws IOException {
        gate.close();
        admin.close();
        Support.deleteTree(outside);
    }

    /** Approves everything and remembers the revision each run was approved for. */
    private final class Recording implements ApprovalChannel {
        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            approved.put(request.run(), request.binding().revision());
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("no workflows here"));
        }
    }

    private static Path skill(Path parent, String name, String says) throws IOException {
        String script = "process.stdout.write(JSON.stringify({ says: '" + says + "' }));\n";
        return Bundles.skill(
                parent,
                name,
                "says.mjs",
                script.getBytes(StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                10_000,
                65536);
    }

    private ExecutionEnvelope execute(String name) {
        return gate.execute(ExecutionRequest.of(RunId.random(), AGENT, name, "{}", workspace));
    }

    private static String said(ExecutionEnvelope env) {
        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        return env.output().orElseThrow();
    }

    /** Renames {@code replacement} over {@code dir} (the old one moved away) and restores the root's mtime. */
    private void swap(Path dir, Path replacement) throws IOException {
        FileTime rootTime = Files.getLastModifiedTime(dir.getParent());
        FileTime dirTime = Files.getLastModifiedTime(dir);
        Path away = outside.resolve(dir.getFileName() + "-away-" + System.nanoTime());
        Files.move(dir, away);
        Files.move(replacement, dir);
        Files.setLastModifiedTime(dir, dirTime);
        Files.setLastModifiedTime(dir.getParent(), rootTime);
        Support.deleteTree(away);
    }

    @Test
    void aDirectorySwappedUnderTheSameNameRunsAndIsApprovedAsTheReplacement() throws Exception {
        Path dir = skill(skills, "pick", "the original");
        Path replacement = skill(Files.createDirectories(outside.resolve("next")), "pick", "the replacement");
        Thread.sleep(OLDER_THAN_MARGIN_MILLIS);
        ExecutionEnvelope first = execute("pick");
        assertThat(said(first)).contains("the original");
        assertThat(said(execute("pick"))).as("the kept catalog answers").contains("the original");

        swap(dir, replacement);
        ExecutionEnvelope second = execute("pick");

        assertThat(said(second)).contains("the replacement");
        assertThat(second.revision()).isNotEqualTo(first.revision());
        assertThat(approved.get(second.runId())).isEqualTo(second.revision().orElseThrow());
    }

    @Test
    void aSkillAddedRemovedOrRenamedBetweenTwoExecutesIsSeen() throws Exception {
        Path gone = skill(skills, "gone", "gone");
        skill(skills, "before", "before");
        Thread.sleep(OLDER_THAN_MARGIN_MILLIS);
        assertThat(said(execute("gone"))).contains("gone");
        assertThat(said(execute("before"))).contains("before");
        assertThat(execute("added").errorCodes()).containsExactly(ErrorCode.SKILL_NOT_FOUND);

        Support.deleteTree(gone);
        Path renamed = skills.resolve("after");
        Files.move(skills.resolve("before"), renamed);
        Files.writeString(renamed.resolve("SKILL.md"), "---\nname: after\ndescription: Renamed.\n---\n# after\n");
        skill(skills, "added", "added");

        assertThat(execute("gone").errorCodes()).containsExactly(ErrorCode.SKILL_NOT_FOUND);
        assertThat(execute("before").errorCodes()).containsExactly(ErrorCode.SKILL_NOT_FOUND);
        assertThat(said(execute("after"))).contains("before");
        assertThat(said(execute("added"))).contains("added");
    }

    @Test
    void concurrentExecutesWhileTheRootChangesRunWhatWasApproved() throws Exception {
        skill(skills, "stable", "stable");
        Path flip = skill(skills, "flip", "A");
        Thread.sleep(OLDER_THAN_MARGIN_MILLIS);
        AtomicBoolean done = new AtomicBoolean();
        Map<Revision, String> sayings = new ConcurrentHashMap<>();
        List<String> mutatorErrors = new ArrayList<>();
        Thread mutator = new Thread(() -> {
            int i = 0;
            try {
                while (!done.get()) {
                    String says = (i % 2 == 0) ? "B" : "A";
                    Path next = skill(Files.createDirectories(outside.resolve("n" + i)), "flip", says);
                    swap(flip, next);
                    skill(skills, "churn-" + i, "churn");
                    if (i > 0) {
                        Support.deleteTree(skills.resolve("churn-" + (i - 1)));
                    }
                    i++;
                    Thread.sleep(15);
                }
            } catch (IOException | InterruptedException e) {
                synchronized (mutatorErrors) {
                    mutatorErrors.add(e.toString());
                }
            }
        });
        mutator.start();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<List<ExecutionEnvelope>>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            futures.add(pool.submit(() -> {
                List<ExecutionEnvelope> out = new ArrayList<>();
                for (int k = 0; k < 5; k++) {
                    out.add(execute("stable"));
                    out.add(execute("flip"));
                }
                return out;
            }));
        }
        List<ExecutionEnvelope> all = new ArrayList<>();
        for (Future<List<ExecutionEnvelope>> f : futures) {
            all.addAll(f.get());
        }
        done.set(true);
        mutator.join();
        pool.shutdown();
        assertThat(mutatorErrors).isEmpty();

        Set<ErrorCode> allowedRefusals =
                Set.of(ErrorCode.CAPTURE_REVISION_MISMATCH, ErrorCode.SOURCE_CHANGED, ErrorCode.SKILL_NOT_FOUND);
        int flipsRun = 0;
        for (ExecutionEnvelope env : all) {
            if (env.status() == ExecutionStatus.SUCCEEDED) {
                Revision ran = env.revision().orElseThrow();
                assertThat(approved.get(env.runId()))
                        .as("what ran is what was approved")
                        .isEqualTo(ran);
                String output = env.output().orElseThrow();
                // One revision, one output: the bytes that ran are the bytes of the approved revision.
                String first = sayings.putIfAbsent(ran, output);
                assertThat(first == null ? output : first).isEqualTo(output);
                if (!output.contains("stable")) {
                    flipsRun++;
                }
            } else {
                assertThat(env.errorCodes()).as(env.toString()).isNotEmpty();
                assertThat(allowedRefusals).as(env.toString()).containsAnyElementsOf(env.errorCodes());
            }
        }
        assertThat(all.stream()
                        .filter(e -> e.output().map(o -> o.contains("stable")).orElse(false))
                        .count())
                .as("the stable skill always runs")
                .isEqualTo(20);
        assertThat(flipsRun).as("some flips ran").isPositive();
    }
}
