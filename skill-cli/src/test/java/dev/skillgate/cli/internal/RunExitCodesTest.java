package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC §13 exit codes for every envelope shape the run command can print. */
class RunExitCodesTest {

    private static ExecutionEnvelope refused(ErrorCode first) {
        return ExecutionEnvelope.refused(
                RunId.of("r"), Optional.empty(), Duration.ZERO, List.of(Diagnostic.error(first, "", "x")));
    }

    private static ExecutionEnvelope ended(ExecutionStatus status, CleanupReport cleanup) {
        return new ExecutionEnvelope(
                status,
                RunId.of("r"),
                Optional.empty(),
                Optional.empty(),
                Duration.ZERO,
                ProcessExit.code(1),
                Optional.empty(),
                List.of(Diagnostic.error(ErrorCode.EXEC_NONZERO_EXIT, "", "x")),
                cleanup,
                HardeningLayer.L0);
    }

    @ParameterizedTest
    @CsvSource({
        "CONSENT_DENIED, REFUSED",
        "CONSENT_TIMEOUT, REFUSED",
        "POLICY_BLOCKED, REFUSED",
        "GATE_SAFE_MODE, REFUSED",
        "CAPTURE_REVISION_MISMATCH, REFUSED",
        "PROCESS_OWNERSHIP_UNSUPPORTED, REFUSED",
        "RUNTIME_MISMATCH, REFUSED",
        "VALUE_TYPE, INVALID",
        "JSON_TOO_LARGE, INVALID",
        "MANIFEST_RANGE, INVALID",
        "EXECUTION_UNAVAILABLE, INVALID",
        "READ_LINK, INVALID"
    })
    void refusalsExit3UnlessTheInputOrBundleIsInvalid(ErrorCode first, ExitCode expected) {
        assertThat(RunReport.exitCode(refused(first))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"FAILED, INVALID", "TIMED_OUT, INVALID", "CANCELLED, INVALID", "OUTPUT_LIMIT, INVALID"})
    void failuresWithProvenCleanupExit1(ExecutionStatus status, ExitCode expected) {
        assertThat(RunReport.exitCode(ended(status, CleanupReport.proven(1, false))))
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"CLEANUP_UNKNOWN"})
    void unprovenCleanupExits4(ExecutionStatus status) {
        ExecutionEnvelope env = new ExecutionEnvelope(
                status,
                RunId.of("r"),
                Optional.empty(),
                Optional.empty(),
                Duration.ZERO,
                ProcessExit.notObserved(),
                Optional.empty(),
                List.of(Diagnostic.error(ErrorCode.CLEANUP_UNKNOWN, "", "x")),
                CleanupReport.unknown(1, false, Optional.empty()),
                HardeningLayer.NONE);
        assertThat(RunReport.exitCode(env)).isEqualTo(ExitCode.CLEANUP_UNKNOWN);
        assertThat(ExitCode.CLEANUP_UNKNOWN.code()).isEqualTo(4);
    }
}
