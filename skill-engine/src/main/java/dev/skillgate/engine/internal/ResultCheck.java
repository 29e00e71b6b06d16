package dev.skillgate.engine.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.ValidatedResult;
import dev.skillgate.protocol.Validation;
import dev.skillgate.runner.OutputCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The runner's {@link OutputCheck} seam filled with the protocol module's strict decoder and the
 * skill's compiled output schema ({@link CompiledSchema#checkResult}).
 *
 * <p>An accepted result is reported as its exact text without the JSON whitespace around it (a
 * trailing newline from {@code console.log} is dropped; nothing inside the value changes). A
 * rejection leads with {@code OUTPUT_NOT_JSON} (not exactly one strict JSON value within the
 * limit) or {@code OUTPUT_SCHEMA} (a value that does not satisfy {@code outputSchema}), followed
 * by the protocol's own issues with their JSON pointers; none of them echo the output beyond
 * {@link dev.skillgate.model.shared.Text#excerpt}.
 */
public final class ResultCheck implements OutputCheck {
    private final CompiledSchema outputSchema;
    private final OutputLimit limit;

    /** A check against {@code outputSchema} with the manifest's output limit. */
    public ResultCheck(CompiledSchema outputSchema, OutputLimit limit) {
        this.outputSchema = Objects.requireNonNull(outputSchema, "outputSchema");
        this.limit = Objects.requireNonNull(limit, "limit");
    }

    @Override
    public Result check(byte[] stdout) {
        Validation<ValidatedResult> validation = outputSchema.checkResult(stdout, limit);
        if (validation instanceof Validation.Valid<ValidatedResult> valid) {
            return OutputCheck.valid(trimJsonWhitespace(valid.value().text()));
        }
        List<Diagnostic> issues = validation.issues();
        boolean notJson = issues.stream().anyMatch(d -> d.code().group() == ErrorGroup.JSON);
        List<Diagnostic> out = new ArrayList<>(issues.size() + 1);
        out.add(
                notJson
                        ? Diagnostic.error(
                                ErrorCode.OUTPUT_NOT_JSON, "", "the result is not exactly one strict JSON value")
                        : Diagnostic.error(
                                ErrorCode.OUTPUT_SCHEMA, "", "the result does not satisfy the output schema"));
        out.addAll(issues);
        return OutputCheck.invalid(out);
    }

    static String trimJsonWhitespace(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isJsonSpace(text.charAt(start))) {
            start++;
        }
        while (end > start && isJsonSpace(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(start, end);
    }

    private static boolean isJsonSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
}
