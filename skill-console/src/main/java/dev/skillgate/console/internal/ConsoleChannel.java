package dev.skillgate.console.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.SkillName;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The console's {@link ApprovalChannel}: each request is put on the page and its stage completes
 * when the person decides, or when it expires, goes stale or is cancelled (as a denial). It holds
 * no reference to the admin or the server: handing it to the engine hands over nothing else.
 */
public final class ConsoleChannel implements ApprovalChannel {
    private final Book book;
    private final Function<SkillName, Optional<String>> descriptions;

    public ConsoleChannel(Book book, Function<SkillName, Optional<String>> descriptions) {
        this.book = Objects.requireNonNull(book, "book");
        this.descriptions = Objects.requireNonNull(descriptions, "descriptions");
    }

    private String describe(SkillName skill) {
        try {
            Optional<String> d = descriptions.apply(skill);
            return d == null ? "" : d.orElse("");
        } catch (RuntimeException e) {
            return "";
        }
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        return book.add(
                request.proposal().toString(),
                Book.Kind.EXECUTION,
                request,
                Display.execution(request, describe(request.skill())),
                Optional.of(request.run()),
                request.skill().value(),
                Optional.of(request.binding()),
                () -> request.artifact().readEntrypointSource().orElse(""),
                Optional.of(request.expiresAt()));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        return book.add(
                request.id().toString(),
                Book.Kind.ACTIVATION,
                request,
                Display.activation(request, describe(request.skill())),
                Optional.empty(),
                request.skill().value(),
                Optional.empty(),
                () -> request.readInstructions().orElse(""),
                Optional.empty());
    }

    @Override
    public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        return book.add(
                request.proposal().toString(),
                Book.Kind.WORKFLOW,
                request,
                Display.workflow(request),
                Optional.of(request.plan().run()),
                "",
                Optional.empty(),
                null,
                Optional.of(request.expiresAt()));
    }

    @Override
    public String toString() {
        return "ConsoleChannel";
    }
}
