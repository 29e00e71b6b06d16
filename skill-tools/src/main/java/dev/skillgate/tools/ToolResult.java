package dev.skillgate.tools;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.tools.internal.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What one tool call returns to the model: {@link Success} (the checked output, the approved
 * instructions or the resource text) or {@link Failure} (stable codes, pointers and Skillgate's own
 * short messages).
 *
 * <p>A failure never carries raw script output — the envelope's diagnostics never echo it — and is
 * a value, not an exception: every adapter turns it into its framework's tool error result, so a
 * refusal never breaks the agent loop and never falls back to anything else.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public sealed interface ToolResult permits ToolResult.Success, ToolResult.Failure {

    /** Whether the call failed or was refused. */
    boolean isError();

    /** The text the model receives. */
    String text();

    /** The error codes, in order; empty for a success. */
    List<ErrorCode> codes();

    /**
     * The call did what it was asked.
     *
     * @param text the checked output JSON, the approved instructions or the resource text
     */
    record Success(String text) implements ToolResult {
        public Success {
            Objects.requireNonNull(text, "text");
        }

        @Override
        public boolean isError() {
            return false;
        }

        @Override
        public List<ErrorCode> codes() {
            return List.of();
        }

        /** Never prints the text. */
        @Override
        public String toString() {
            return "Success[" + text.length() + " chars]";
        }
    }

    /**
     * The call failed or was refused.
     *
     * @param tool the tool that was called
     * @param status how it ended ({@code REFUSED}: nothing started)
     * @param errors why (at least one)
     */
    record Failure(String tool, ExecutionStatus status, List<Diagnostic> errors) implements ToolResult {
        /** Most diagnostics shown to the model. */
        public static final int MAX_ERRORS = 20;

        public Failure {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(status, "status");
            errors = List.copyOf(errors);
            if (errors.isEmpty()) {
                throw new IllegalArgumentException("a failure needs a reason");
            }
            if (status == ExecutionStatus.SUCCEEDED) {
                throw new IllegalArgumentException("a failure did not succeed");
            }
        }

        /** A refusal before anything started. */
        public static Failure refused(String tool, List<Diagnostic> errors) {
            return new Failure(tool, ExecutionStatus.REFUSED, errors);
        }

        /** A refusal before anything started, for one reason. */
        public static Failure refused(String tool, ErrorCode code, String location, String message) {
            return refused(tool, List.of(Diagnostic.error(code, location, message)));
        }

        @Override
        public boolean isError() {
            return true;
        }

        @Override
        public List<ErrorCode> codes() {
            return errors.stream().map(Diagnostic::code).toList();
        }

        /**
         * {@code {"error":{"tool","status","started","codes":[…],"issues":[{"code","at","message"}…]}}}:
         * at most {@value #MAX_ERRORS} issues; {@code started} is false for a refusal (nothing ran).
         */
        @Override
        public String text() {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("tool", tool);
            error.put("status", status.name());
            error.put("started", status != ExecutionStatus.REFUSED);
            List<String> codes = new ArrayList<>();
            List<Map<String, Object>> issues = new ArrayList<>();
            for (Diagnostic d : errors.subList(0, Math.min(errors.size(), MAX_ERRORS))) {
                codes.add(d.code().name());
                Map<String, Object> issue = new LinkedHashMap<>();
                issue.put("code", d.code().name());
                issue.put("at", d.location());
                issue.put("message", d.message());
                issues.add(issue);
            }
            error.put("codes", codes);
            error.put("issues", issues);
            return Json.write(Map.of("error", error));
        }

        @Override
        public String toString() {
            return "Failure[" + tool + ", " + status + ", " + codes() + "]";
        }
    }
}
