package dev.skillgate.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of the {@link ApprovalChannel} SPI as a reusable test class (a TCK): a host that
 * implements an approval surface extends this class and supplies the channel together with a way to
 * act as the human at its other end.
 *
 * <pre>{@code
 * class MyDialogChannelContractTest extends AbstractApprovalChannelContractTest {
 *     @Override
 *     protected HumanAtTheChannel openChannel() {
 *         MyDialogChannel channel = new MyDialogChannel(fakeUiDriver);
 *         return new HumanAtTheChannel() {
 *             public ApprovalChannel channel() { return channel; }
 *             public void approveNext() { fakeUiDriver.clickApproveOnNextDialog(); }
 *             public void denyNext() { fakeUiDriver.clickDenyOnNextDialog(); }
 *             public void closeChannel() { channel.close(); }
 *         };
 *     }
 * }
 * }</pre>
 *
 * <p>Every request goes through {@link ApprovalChannel#failClosed}, as the ledger sends it. What is
 * asserted:
 * <ul>
 *   <li>an explicit approval approves exactly one request, and a second request is not approved by
 *       it; a human denial is {@code CONSENT_DENIED};
 *   <li>no answer within the window is {@code CONSENT_TIMEOUT}, and an approval given after that
 *       never approves a later request;
 *   <li>a closed channel denies with {@code CONSENT_CHANNEL_UNAVAILABLE}, both for a request made
 *       after closing and for requests waiting when the channel closes — the one shown and one
 *       queued behind it — well before the 5 s window ends;
 *   <li>six requests from six threads with three approvals and three denials queued get exactly
 *       three approvals and three {@code CONSENT_DENIED};
 *   <li>when the channel renders text ({@link HumanAtTheChannel#shownText()}), what the human saw
 *       includes the full-trust warning, the revision, every argv entry, the invocation and its
 *       digest.
 * </ul>
 * The channel must hold a request while no answer is queued (not decide by itself). Not covered:
 * workflow-plan and activation requests (their defaults deny as unavailable), and whether a real
 * human understood what was shown.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public abstract class AbstractApprovalChannelContractTest {

    /** A channel under test and the human at its other end, scripted by the implementer's test. */
    public interface HumanAtTheChannel {

        /** The channel (unwrapped: the contract test wraps it fail-closed itself). */
        ApprovalChannel channel();

        /** The human will explicitly approve the next request shown, and only that one. */
        void approveNext() throws Exception;

        /** The human will explicitly deny the next request shown. */
        void denyNext() throws Exception;

        /** Closes the channel as a host does when it shuts down; may be called more than once. */
        void closeChannel() throws Exception;

        /** Everything shown to the human so far, when the channel renders text; empty skips the display check. */
        default Optional<String> shownText() {
            return Optional.empty();
        }
    }

    /** A fresh channel, holding requests while no answer is queued, and its human. */
    protected abstract HumanAtTheChannel openChannel() throws Exception;

    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration LONG = Duration.ofSeconds(30);
    private static final Duration CLOSE_WINDOW = Duration.ofSeconds(5);

    private HumanAtTheChannel human;

    @BeforeEach
    public final void openChannelForTheTest() throws Exception {
        human = openChannel();
        assertThat(human).as("openChannel()").isNotNull();
    }

    @AfterEach
    public final void closeChannelAfterTheTest() throws Exception {
        human.closeChannel();
    }

    @Test
    public void anExplicitApprovalApprovesExactlyOneRequest() throws Exception {
        human.approveNext();
        assertThat(ask(request(1), LONG))
                .satisfies(d -> assertThat(d.isApproval()).isTrue());
        assertThat(code(ask(request(2), SHORT)))
                .as("one approval answers one request")
                .isEqualTo(ErrorCode.CONSENT_TIMEOUT);
    }

    @Test
    public void aHumanDenialIsConsentDenied() throws Exception {
        human.denyNext();
        assertThat(code(ask(request(1), LONG))).isEqualTo(ErrorCode.CONSENT_DENIED);
    }

    @Test
    public void noAnswerIsConsentTimeoutAndALateApprovalNeverApprovesALaterRequest() throws Exception {
        assertThat(code(ask(request(1), SHORT))).isEqualTo(ErrorCode.CONSENT_TIMEOUT);
        human.approveNext();
        ApprovalDecision later = ask(request(2), Duration.ofMillis(600));
        assertThat(later.isApproval())
                .as("an approval given after the first request timed out approved a later one")
                .isFalse();
    }

    @Test
    public void aClosedChannelDeniesAsUnavailable() throws Exception {
        human.closeChannel();
        assertThat(code(ask(request(1), LONG))).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        assertThat(code(ask(request(2), LONG))).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
    }

    @Test
    public void aWaitingRequestIsDeniedAsUnavailableWhenTheChannelCloses() throws Exception {
        ApprovalRequest shown = request(1);
        CompletableFuture<ApprovalDecision> waiting = ApprovalChannel.failClosed(human.channel(), CLOSE_WINDOW)
                .request(shown)
                .toCompletableFuture();
        awaitShown(shown);
        assertThat(waiting).as("the request is held while nobody answers").isNotDone();
        human.closeChannel();
        assertThat(code(waiting.get(CLOSE_WINDOW.toMillis() + 10_000, TimeUnit.MILLISECONDS)))
                .as("a request waiting when the channel closed (CONSENT_TIMEOUT: it was left to the window)")
                .isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
    }

    @Test
    public void aRequestQueuedBehindAWaitingOneIsDeniedAsUnavailableWhenTheChannelCloses() throws Exception {
        // A channel that shows one request at a time has the first on screen and the second queued.
        ApprovalChannel channel = ApprovalChannel.failClosed(human.channel(), CLOSE_WINDOW);
        CompletableFuture<ApprovalDecision> first = channel.request(request(1)).toCompletableFuture();
        CompletableFuture<ApprovalDecision> second = channel.request(request(2)).toCompletableFuture();
        Thread.sleep(300);
        assertThat(first).as("the request is held while nobody answers").isNotDone();
        assertThat(second).as("the request is held while nobody answers").isNotDone();
        human.closeChannel();
        for (CompletableFuture<ApprovalDecision> waiting : List.of(first, second)) {
            assertThat(code(waiting.get(CLOSE_WINDOW.toMillis() + 10_000, TimeUnit.MILLISECONDS)))
                    .as("a request waiting when the channel closed (CONSENT_TIMEOUT: it was left to the window)")
                    .isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        }
    }

    @Test
    public void concurrentRequestsEachGetExactlyOneAnswer() throws Exception {
        int n = 6;
        ApprovalChannel channel = ApprovalChannel.failClosed(human.channel(), LONG);
        List<CompletableFuture<ApprovalDecision>> answers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
            answers.add(answer);
            ApprovalRequest request = request(10 + i);
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    channel.request(request).whenComplete((d, e) -> {
                        if (e != null) {
                            answer.completeExceptionally(e);
                        } else {
                            answer.complete(d);
                        }
                    });
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    answer.completeExceptionally(e);
                }
            });
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        go.countDown();
        for (int i = 0; i < n / 2; i++) {
            human.approveNext();
            human.denyNext();
        }
        int approved = 0;
        int denied = 0;
        for (CompletableFuture<ApprovalDecision> answer : answers) {
            ApprovalDecision d = answer.get(20, TimeUnit.SECONDS);
            if (d.isApproval()) {
                approved++;
            } else {
                assertThat(code(d)).isEqualTo(ErrorCode.CONSENT_DENIED);
                denied++;
            }
        }
        assertThat(approved).as("approvals").isEqualTo(n / 2);
        assertThat(denied).as("denials").isEqualTo(n / 2);
    }

    @Test
    public void whatTheHumanSeesIncludesTheWarningAndTheExactLaunch() throws Exception {
        ApprovalRequest request = request(1);
        human.approveNext();
        assertThat(ask(request, LONG)).satisfies(d -> assertThat(d.isApproval()).isTrue());
        Optional<String> shown = human.shownText();
        org.junit.jupiter.api.Assumptions.assumeTrue(
                shown.isPresent(), "this channel renders no text the contract test can read");
        assertThat(shown.get())
                .contains(ApprovalRequest.FULL_TRUST_WARNING)
                .contains(request.artifact().revision().toString())
                .contains(request.invocation().digest().toString())
                .contains("secret-argument-value");
        for (String arg : request.argv()) {
            assertThat(shown.get()).as("argv entry shown").contains(arg);
        }
    }

    // ------------------------------------------------------------------------------------------

    /** Waits until the channel displayed {@code request} (when it renders text), else 300 ms. */
    private void awaitShown(ApprovalRequest request) throws InterruptedException {
        String revision = request.artifact().revision().toString();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            Optional<String> text = human.shownText();
            if (text.isEmpty()) {
                Thread.sleep(300);
                return;
            }
            if (text.get().contains(revision)) {
                Thread.sleep(100);
                return;
            }
            Thread.sleep(20);
        }
    }

    private ApprovalDecision ask(ApprovalRequest request, Duration window) throws Exception {
        return ApprovalChannel.failClosed(human.channel(), window)
                .request(request)
                .toCompletableFuture()
                .get(window.toMillis() + 10_000, TimeUnit.MILLISECONDS);
    }

    private static ErrorCode code(ApprovalDecision decision) {
        assertThat(decision).isInstanceOf(ApprovalDecision.Denied.class);
        return ((ApprovalDecision.Denied) decision).code();
    }

    /** A request for a distinct run; argv entries hold spaces and shell metacharacters, shown as data. */
    private static ApprovalRequest request(int i) {
        PortablePath entry = PortablePath.of("run.mjs");
        String source = "process.stdout.write('{}') // " + i + "\n";
        Revision revision = Revision.compute(Map.of(entry, source.getBytes(StandardCharsets.UTF_8)));
        String input = "{\"name\":\"secret-argument-value\",\"i\":" + i + "}";
        Sha256Digest digest = Sha256Digest.hash(input.getBytes(StandardCharsets.UTF_8));
        ConsentBinding binding = new ConsentBinding(
                AgentId.of("agent-1"),
                RunId.of("run-" + i),
                new WorkspaceIdentity(Path.of("/home/ada/work $(id)"), "(dev=1,ino=" + i + ")"),
                revision,
                digest,
                new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.2", Optional.empty()),
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
        Instant now = Instant.now();
        return new ApprovalRequest(
                ProposalId.random(),
                SkillName.of("contract-test"),
                binding,
                new ArtifactDescription(
                        revision,
                        List.of(new ArtifactDescription.FileEntry(
                                entry, source.length(), Sha256Digest.hash(source.getBytes(StandardCharsets.UTF_8)))),
                        entry,
                        () -> source),
                new InvocationPreview("{\n  \"name\": \"secret-argument-value\",\n  \"i\": " + i + "\n}", digest),
                List.of("/usr/bin/node", "--no-addons", "--", "/tmp/stage " + i + "/run.mjs"),
                Enforcement.standard(Timeout.DEFAULT, OutputLimit.DEFAULT),
                now,
                now.plus(Duration.ofMinutes(5)));
    }
}
