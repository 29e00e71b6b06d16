package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Sha256Digest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The CLI's terminal channel, driven through real streams. */
class ConsoleApprovalChannelTest {
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final ConsentLedger ledger = ConsentLedger.open(RUN);

    private ApprovalDecision answer(String typed) throws Exception {
        return answer(typed, Fixtures.request(ledger.propose(SKILL, binding()).orElseThrow()));
    }

    private ApprovalDecision answer(String typed, ApprovalRequest request) throws Exception {
        return answer(new StringReader(typed), request);
    }

    private ApprovalDecision answer(Reader in, ApprovalRequest request) throws Exception {
        try (ConsoleApprovalChannel console =
                new ConsoleApprovalChannel(new PrintStream(printed, true, StandardCharsets.UTF_8), in)) {
            return console.request(request).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    private String output() {
        return printed.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"y\n", "yes\n", "  YES \r\n", "Y\n"})
    void onlyAnExplicitYesApproves(String typed) throws Exception {
        assertThat(answer(typed).isApproval()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "n\n", "no\n", "yes please\n", "yy\n", "ok\n", "1\n", "\u0079\u0308\n"})
    void anythingElseDenies(String typed) throws Exception {
        ApprovalDecision d = answer(typed);
        assertThat(d)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_DENIED));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "y", "yes"})
    void endOfInputIsADenialEvenAfterAPartialYes(String typed) throws Exception {
        ApprovalDecision d = answer(typed);
        assertThat(d)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class,
                        x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE));
    }

    @Test
    void anOverlongLineIsADenialNotAYes() throws Exception {
        assertThat(answer("y".repeat(10_000) + "\n").isApproval()).isFalse();
        assertThat(answer("yes" + " ".repeat(ConsoleApprovalChannel.MAX_ANSWER) + "\n")
                        .isApproval())
                .isFalse();
    }

    @Test
    void aReadErrorIsADenial() throws Exception {
        Reader broken = new Reader() {
            @Override
            public int read(char[] buf, int off, int len) throws IOException {
                throw new IOException("terminal gone");
            }

            @Override
            public void close() {}
        };
        ApprovalDecision d =
                answer(broken, Fixtures.request(ledger.propose(SKILL, binding()).orElseThrow()));
        assertThat(d)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class,
                        x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE));
    }

    @Test
    void theRequestIsShownInFull() throws Exception {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        answer("n\n", Fixtures.request(p));
        String out = output();
        assertThat(out)
                .contains("runs as your user with your files and network; not a sandbox")
                .contains(p.id().toString())
                .contains("pdf-fill")
                .contains(Fixtures.REVISION.toString())
                .contains("/home/u/work")
                .contains("(dev=1,ino=2)")
                .contains("/usr/bin/node v20.20.2")
                .contains("[\"/usr/bin/node\", \"/tmp/stage/run.mjs\"]")
                .contains("timeout 60000 ms, stdout 65536 bytes")
                .contains("isolation:    none")
                .contains("NOT enforced")
                .contains("2 files, 137 bytes")
                .contains("     120  SKILL.md")
                .contains("run.mjs")
                .contains(Fixtures.INPUT_DIGEST.toString())
                .contains("\"name\": \"secret-argument-value\"")
                .contains(p.expiresAt().toString())
                .doesNotContain("console.log"); // source only on demand
    }

    @Test
    void sourceIsShownOnDemandThenTheQuestionIsAskedAgain() throws Exception {
        assertThat(answer("s\nyes\n").isApproval()).isTrue();
        assertThat(output()).contains("  | console.log('{}')");
        assertThat(output().split("Approve this exact run", -1)).hasSize(3);
    }

    @Test
    void askingForTheSourceForeverEndsInADenial() throws Exception {
        assertThat(answer("s\n".repeat(20)).isApproval()).isFalse();
        assertThat(output().split("Approve this exact run", -1)).hasSize(ConsoleApprovalChannel.MAX_PROMPTS + 1);
    }

    @Test
    void untrustedTextCannotActOnTheTerminal() throws Exception {
        String hostile = "\u001b[2J\u001b]0;pwned\u0007\u202eevil\r\u0085";
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ArtifactDescription artifact = new ArtifactDescription(
                p.binding().revision(),
                List.of(new ArtifactDescription.FileEntry(
                        PortablePath.of("run.mjs"), 17, Sha256Digest.hash(new byte[] {2}))),
                PortablePath.of("run.mjs"),
                () -> "// " + hostile + "\nmain();");
        ApprovalRequest request = ApprovalRequest.forProposal(
                p,
                artifact,
                new InvocationPreview(
                        "{\"x\": \"" + hostile + "\"}", p.binding().invocationDigest()),
                List.of("/usr/bin/node", "arg" + hostile),
                Enforcement.standard(p.binding().timeout(), p.binding().outputLimit()));
        answer("s\nn\n", request);
        String out = output();
        assertThat(out).doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\u202e");
        assertThat(out).doesNotContain("\r").doesNotContain("\u0085");
        assertThat(out).contains("\\u001B[2J").contains("\\u202E");
    }

    @Test
    void longLinesWrapAndAreNeverCut() throws Exception {
        String longValue = "a".repeat(1000) + "END";
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalRequest request = ApprovalRequest.forProposal(
                p,
                Fixtures.artifact(p.binding().revision()),
                new InvocationPreview(
                        "{\"v\": \"" + longValue + "\"}", p.binding().invocationDigest()),
                List.of("/usr/bin/node", "x"),
                Enforcement.standard(p.binding().timeout(), p.binding().outputLimit()));
        answer("n\n", request);
        String joined = output().replace("\n  |+", "");
        assertThat(joined).contains(longValue);
    }

    @Test
    void aClosedConsoleDenies() throws Exception {
        ConsoleApprovalChannel console = new ConsoleApprovalChannel(
                new PrintStream(printed, true, StandardCharsets.UTF_8), new StringReader("y\n"));
        console.close();
        ApprovalDecision d = console.request(
                        Fixtures.request(ledger.propose(SKILL, binding()).orElseThrow()))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(d.isApproval()).isFalse();
    }

    @Test
    void workflowPlansAreShownWithEveryStep() throws Exception {
        PlanSnapshot plan = ledger.proposePlan(WorkflowPlanTest.plan(List.of(
                        WorkflowPlanTest.step(SKILL),
                        new PlannedStep(
                                Fixtures.OTHER_SKILL,
                                Fixtures.REVISION,
                                java.util.Optional.of(Fixtures.INPUT_DIGEST)))))
                .orElseThrow();
        try (ConsoleApprovalChannel console = new ConsoleApprovalChannel(
                new PrintStream(printed, true, StandardCharsets.UTF_8), new StringReader("yes\n"))) {
            assertThat(console.requestWorkflow(WorkflowApprovalRequest.forPlan(plan))
                            .toCompletableFuture()
                            .get(10, TimeUnit.SECONDS)
                            .isApproval())
                    .isTrue();
        }
        assertThat(output())
                .contains("not a sandbox")
                .contains("1. pdf-fill")
                .contains("any valid input")
                .contains("2. csv-sum")
                .contains(Fixtures.INPUT_DIGEST.toString())
                .contains("this run only; each step once");
    }
}
