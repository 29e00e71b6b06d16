package dev.skillgate.consent;

import dev.skillgate.consent.shared.Ticker;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Shared test values: real model types built from fixed bytes. */
final class Fixtures {
    private Fixtures() {}

    static final RunId RUN = RunId.of("run-1");
    static final AgentId AGENT = AgentId.of("agent-1");
    static final SkillName SKILL = SkillName.of("pdf-fill");
    static final SkillName OTHER_SKILL = SkillName.of("csv-sum");
    static final WorkspaceIdentity WORKSPACE = new WorkspaceIdentity(Path.of("/home/u/work"), "(dev=1,ino=2)");
    static final RuntimeIdentity RUNTIME = new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.2", Optional.empty());

    static Revision revision(String content) {
        return Revision.compute(Map.of(PortablePath.of("run.mjs"), content.getBytes(StandardCharsets.UTF_8)));
    }

    static final Revision REVISION = revision("console.log('{}')");
    static final String INPUT = "{\"name\":\"secret-argument-value\"}";
    static final Sha256Digest INPUT_DIGEST = Sha256Digest.hash(INPUT.getBytes(StandardCharsets.UTF_8));

    static ConsentBinding binding() {
        return new ConsentBinding(
                AGENT, RUN, WORKSPACE, REVISION, INPUT_DIGEST, RUNTIME, Timeout.DEFAULT, OutputLimit.DEFAULT);
    }

    static ConsentBinding binding(RunId run) {
        return new ConsentBinding(
                AGENT, run, WORKSPACE, REVISION, INPUT_DIGEST, RUNTIME, Timeout.DEFAULT, OutputLimit.DEFAULT);
    }

    /** A binding that differs from {@link #binding()} in the invocation only. */
    static ConsentBinding bindingWithInput(String input) {
        return new ConsentBinding(
                AGENT,
                RUN,
                WORKSPACE,
                REVISION,
                Sha256Digest.hash(input.getBytes(StandardCharsets.UTF_8)),
                RUNTIME,
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
    }

    static ArtifactDescription artifact(Revision revision) {
        return new ArtifactDescription(
                revision,
                List.of(
                        new ArtifactDescription.FileEntry(
                                PortablePath.of("SKILL.md"), 120, Sha256Digest.hash(new byte[] {1})),
                        new ArtifactDescription.FileEntry(
                                PortablePath.of("run.mjs"), 17, Sha256Digest.hash(new byte[] {2}))),
                PortablePath.of("run.mjs"),
                () -> "console.log('{}')\n");
    }

    static ApprovalRequest request(ProposalSnapshot p) {
        return ApprovalRequest.forProposal(
                p,
                artifact(p.binding().revision()),
                new InvocationPreview(
                        "{\n  \"name\": \"secret-argument-value\"\n}",
                        p.binding().invocationDigest()),
                List.of("/usr/bin/node", "/tmp/stage/run.mjs"),
                Enforcement.standard(p.binding().timeout(), p.binding().outputLimit()));
    }

    /** A manually advanced monotonic ticker. */
    static final class FakeTicker implements Ticker {
        private final AtomicLong now;

        FakeTicker(long start) {
            now = new AtomicLong(start);
        }

        @Override
        public long nanos() {
            return now.get();
        }

        void advance(long nanos) {
            now.addAndGet(nanos);
        }

        void set(long nanos) {
            now.set(nanos);
        }
    }

    /** A wall clock that tests can jump. */
    static final class MutableClock extends Clock {
        private final AtomicReference<Instant> now;

        MutableClock(Instant start) {
            now = new AtomicReference<>(start);
        }

        void jump(Duration d) {
            now.updateAndGet(i -> i.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    /**
     * Waits until {@code channel} holds {@code count} requests: the ledger calls the host's channel on
     * its own pool thread (decision 0761), so a request is held shortly after requestApproval returns.
     */
    static int awaitHeld(ScriptedApprovalChannel channel, int count) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (channel.heldCount() < count && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        return channel.heldCount();
    }
}
