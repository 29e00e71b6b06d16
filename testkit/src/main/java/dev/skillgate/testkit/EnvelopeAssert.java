package dev.skillgate.testkit;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import java.util.Arrays;
import java.util.List;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions for an {@link ExecutionEnvelope}. Failure messages show the status, the error
 * codes and the cleanup report — never the output text unless the assertion is about it.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class EnvelopeAssert extends AbstractAssert<EnvelopeAssert, ExecutionEnvelope> {

    EnvelopeAssert(ExecutionEnvelope actual) {
        super(actual, EnvelopeAssert.class);
    }

    private String summary() {
        return "status " + actual.status() + ", errors " + actual.errors() + ", cleanup " + actual.cleanup();
    }

    /** The status is {@code status}. */
    public EnvelopeAssert hasStatus(ExecutionStatus status) {
        isNotNull();
        if (actual.status() != status) {
            failWithMessage("Expected status %s but got %s", status, summary());
        }
        return this;
    }

    /** It succeeded: exit 0, proven cleanup, validated output (the envelope guarantees the rest). */
    public EnvelopeAssert succeeded() {
        return hasStatus(ExecutionStatus.SUCCEEDED);
    }

    /** It was refused: nothing started. */
    public EnvelopeAssert wasRefused() {
        hasStatus(ExecutionStatus.REFUSED);
        if (actual.cleanup().status() != CleanupStatus.NOT_STARTED) {
            failWithMessage("Expected nothing started but got %s", summary());
        }
        return this;
    }

    /** It was refused, the first error being {@code code}. */
    public EnvelopeAssert wasRefusedWith(ErrorCode code) {
        wasRefused();
        if (actual.errors().isEmpty() || actual.errors().get(0).code() != code) {
            failWithMessage("Expected a refusal with %s first but got %s", code, summary());
        }
        return this;
    }

    /** The error codes are exactly {@code codes}, in order. */
    public EnvelopeAssert hasErrorCodes(ErrorCode... codes) {
        isNotNull();
        List<ErrorCode> expected = Arrays.asList(codes);
        if (!actual.errorCodes().equals(expected)) {
            failWithMessage("Expected error codes %s but got %s", expected, summary());
        }
        return this;
    }

    /** Some error has {@code code}. */
    public EnvelopeAssert hasErrorCode(ErrorCode code) {
        isNotNull();
        if (!actual.errorCodes().contains(code)) {
            failWithMessage("Expected an error %s but got %s", code, summary());
        }
        return this;
    }

    /** Some error has {@code code} at {@code location} (a JSON pointer or bundle path). */
    public EnvelopeAssert hasErrorAt(ErrorCode code, String location) {
        isNotNull();
        for (Diagnostic d : actual.errors()) {
            if (d.code() == code && d.location().equals(location)) {
                return this;
            }
        }
        failWithMessage("Expected an error %s at '%s' but got %s", code, location, actual.errors());
        return this;
    }

    /** The validated output is exactly {@code json}. */
    public EnvelopeAssert hasOutput(String json) {
        isNotNull();
        if (!actual.output().map(json::equals).orElse(false)) {
            failWithMessage("Expected output %s but got %s (%s)", json, actual.output(), summary());
        }
        return this;
    }

    /** The validated output contains {@code text}. */
    public EnvelopeAssert outputContains(String text) {
        isNotNull();
        if (!actual.output().map(o -> o.contains(text)).orElse(false)) {
            failWithMessage("Expected output containing %s but got %s (%s)", text, actual.output(), summary());
        }
        return this;
    }

    /** Cleanup of the process tree was proven. */
    public EnvelopeAssert hasCleanupProven() {
        isNotNull();
        if (actual.cleanup().status() != CleanupStatus.PROVEN) {
            failWithMessage("Expected cleanup PROVEN but got %s", summary());
        }
        return this;
    }

    /** Cleanup of the process tree is unknown (and so is the status). */
    public EnvelopeAssert hasCleanupUnknown() {
        isNotNull();
        if (actual.cleanup().status() != CleanupStatus.UNKNOWN) {
            failWithMessage("Expected cleanup UNKNOWN but got %s", summary());
        }
        return this;
    }

    /** The envelope names {@code revision}. */
    public EnvelopeAssert hasRevision(Revision revision) {
        isNotNull();
        if (!actual.revision().map(revision::equals).orElse(false)) {
            failWithMessage("Expected revision %s but got %s", revision, actual.revision());
        }
        return this;
    }
}
