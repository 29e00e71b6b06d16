package dev.skillgate.cli.internal;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.Revision;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The approval channel of {@code skillgate run}: the console channel showing the request and reading
 * the human's answer, or — with {@code --approve} — the same rendering answered {@code yes} only when
 * the request's revision is the given one, {@code no} otherwise (the request is shown either way).
 * It approves nothing by itself: the consent ledger still binds the decision to the request.
 */
final class TerminalApprovals implements ApprovalChannel, AutoCloseable {
    private final PrintStream talk;
    private final InputStream in;
    private final Optional<Revision> approve;
    private ConsoleApprovalChannel console;

    TerminalApprovals(PrintStream talk, InputStream in, Optional<Revision> approve) {
        this.talk = talk;
        this.in = in;
        this.approve = approve;
    }

    @Override
    public synchronized CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        Reader answers;
        Optional<String> mismatch = Optional.empty();
        if (approve.isPresent()) {
            Revision captured = request.artifact().revision();
            if (!approve.get().equals(captured)) {
                mismatch = Optional.of("--approve names " + approve.get() + ", captured " + captured);
            }
            // No lambda on the approving path: each call site is linked in a cold JVM (decision 0895).
            talk.println(
                    mismatch.isPresent()
                            ? mismatch.get() + ": answering no, nothing runs"
                            : "--approve names the captured revision: answering yes");
            answers = new StringReader(mismatch.isPresent() ? "no\n" : "yes\n");
        } else {
            answers = new InputStreamReader(in, StandardCharsets.UTF_8);
        }
        if (console != null) {
            console.close();
        }
        console = new ConsoleApprovalChannel(talk, answers);
        CompletionStage<ApprovalDecision> shown = console.request(request);
        if (mismatch.isEmpty()) {
            return shown;
        }
        String reason = mismatch.get();
        return shown.thenApply(d -> ApprovalDecision.deny(reason));
    }

    @Override
    public synchronized void close() {
        if (console != null) {
            console.close();
        }
    }
}
