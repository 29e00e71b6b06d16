package dev.skillgate.consent;

import dev.skillgate.consent.internal.ApprovalText;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * A terminal {@link ApprovalChannel} for the CLI: prints the whole request (with the full-trust
 * warning; untrusted text escaped so it cannot act on the terminal) and reads the answer.
 *
 * <p>Only an explicit {@code y} or {@code yes} (any case, surrounding spaces ignored) approves.
 * {@code s} shows the entrypoint source and asks again (at most {@value #MAX_PROMPTS} prompts).
 * Anything else — an empty line, any other text, a line longer than {@value #MAX_ANSWER}
 * characters — is a denial; end of input (even after a partial line) or a read error is a denial with
 * {@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}. Requests are shown one at a time on a private
 * daemon thread, so a caller's timeout (see {@link ApprovalChannel#failClosed}) can fire while the
 * terminal waits; a late answer to a timed-out request is discarded by the ledger.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class ConsoleApprovalChannel implements ApprovalChannel, AutoCloseable {
    /** Longest answer line read; longer lines are a denial. */
    public static final int MAX_ANSWER = 64;

    /** Most prompts for one request (each {@code s} uses one). */
    public static final int MAX_PROMPTS = 4;

    private final PrintStream out;
    private final Reader in;
    private final ExecutorService executor;

    /** Requests not answered yet; {@link #close} denies them, since a dropped prompt never would. */
    private final Set<CompletableFuture<ApprovalDecision>> pending = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    /** A console channel printing to {@code out} and reading answers from {@code in}. */
    public ConsoleApprovalChannel(PrintStream out, Reader in) {
        this.out = Objects.requireNonNull(out, "out");
        this.in = Objects.requireNonNull(in, "in");
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "skillgate-console-approval");
            t.setDaemon(true);
            return t;
        });
    }

    /** A console channel on {@code System.out} and {@code System.in} (platform charset). */
    public static ConsoleApprovalChannel system() {
        return new ConsoleApprovalChannel(System.out, new InputStreamReader(System.in, Charset.defaultCharset()));
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        return submit(() -> {
            out.print(ApprovalText.render(request));
            return ask(request.proposal(), "Approve this exact run? [y/N, s = show entrypoint source] ", () -> {
                Optional<String> source = request.artifact().readEntrypointSource();
                out.print(source.map(ApprovalText::block).orElse("  (source unavailable)\n"));
            });
        });
    }

    @Override
    public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        return submit(() -> {
            out.print(ApprovalText.render(request));
            return ask(
                    request.proposal(),
                    "Approve this plan for this run? [y/N] ",
                    () -> out.println("  (no source for a plan)"));
        });
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        return submit(() -> {
            out.print(ApprovalText.render(request));
            return ask(
                    request.id(), "Allow this agent to use these exact instructions? [y/N, s = show SKILL.md] ", () -> {
                        Optional<String> text = request.readInstructions();
                        out.print(text.map(ApprovalText::block).orElse("  (instructions unavailable)\n"));
                    });
        });
    }

    /**
     * Stops the reader thread and denies, as unavailable, the request on screen, every request queued
     * behind it and every later one — at once, not when their approval windows end.
     */
    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        for (CompletableFuture<ApprovalDecision> stage : List.copyOf(pending)) {
            stage.complete(closedDenial());
        }
    }

    private CompletionStage<ApprovalDecision> submit(Supplier<ApprovalDecision> task) {
        CompletableFuture<ApprovalDecision> stage;
        try {
            stage = CompletableFuture.supplyAsync(task, executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(closedDenial());
        }
        pending.add(stage);
        stage.whenComplete((decision, failure) -> pending.remove(stage));
        if (closed) { // closed between the submission and the registration above
            stage.complete(closedDenial());
        }
        return stage;
    }

    private static ApprovalDecision closedDenial() {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the console channel is closed");
    }

    private ApprovalDecision ask(ProposalId shown, String prompt, Runnable showSource) {
        for (int i = 0; i < MAX_PROMPTS; i++) {
            out.print(prompt);
            out.flush();
            Optional<String> line;
            try {
                line = readLine();
            } catch (IOException e) {
                return new ApprovalDecision.Denied(
                        ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the console could not be read");
            }
            if (line.isEmpty()) {
                out.println();
                return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no answer: input closed");
            }
            String answer = line.get().trim().toLowerCase(Locale.ROOT);
            if (answer.equals("y") || answer.equals("yes")) {
                out.println("approved");
                return ApprovalDecision.approve(shown);
            }
            if (answer.equals("s")) {
                showSource.run();
                continue;
            }
            out.println("denied");
            return ApprovalDecision.deny("declined at the console");
        }
        out.println("denied");
        return ApprovalDecision.deny("no decision after " + MAX_PROMPTS + " prompts");
    }

    /**
     * One complete line without its terminator; empty at end of input (a final line without a
     * newline is not an answer). A line longer than {@link #MAX_ANSWER} is consumed to its end and
     * returned as a non-answer.
     */
    private Optional<String> readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        boolean overflow = false;
        while (true) {
            int c = in.read();
            if (c < 0) {
                return Optional.empty();
            }
            if (c == '\n') {
                return Optional.of(overflow ? "(too long)" : line.toString());
            }
            if (line.length() < MAX_ANSWER) {
                line.append((char) c);
            } else {
                overflow = true;
            }
        }
    }
}
