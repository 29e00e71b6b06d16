package dev.skillgate.runner.internal;

import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import dev.skillgate.runner.OutputCheck;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what a supervisor observed into the envelope's status, errors and output (SPEC §10 step 6).
 * A pure function of its inputs, so every branch is unit-tested with real {@link SupervisionResult}s.
 *
 * <p>Success needs all of: the supervisor recorded ownership (the runner's re-hash ran), outcome
 * {@code EXITED} with exit code 0, output within bounds, non-empty, strict UTF-8 and accepted by the
 * {@link OutputCheck}, no detached descendant, and cleanup proven by something other than "nothing
 * started". Output is only decoded and checked after a clean exit 0 — never after a limit, a
 * timeout, a cancel or a signal, so truncated output is never parsed.
 */
public final class EnvelopeMapper {

    /** Proof string meaning nothing was started (see {@code CleanupEvidence.nothingStarted()}). */
    public static final String NOTHING_STARTED = "NOTHING_STARTED";

    private static final Pattern DETAIL_CODE = Pattern.compile("^([A-Z][A-Z0-9_]{2,63}):");
    private static final Set<ErrorGroup> DETAIL_GROUPS =
            EnumSet.of(ErrorGroup.RUNTIME, ErrorGroup.STAGING, ErrorGroup.EXECUTION, ErrorGroup.SUPERVISION);

    private EnvelopeMapper() {}

    /**
     * What the runner knew when the result arrived.
     *
     * @param ownershipRecorded whether the supervisor called the runner's ownership recorder and it succeeded
     * @param recorderRefusal why the recorder refused, if it did
     * @param stdoutLimit the stdout bound the spec carried
     * @param stderrLimit the stderr bound the spec carried
     */
    public record Expectations(
            boolean ownershipRecorded, Optional<ErrorCode> recorderRefusal, int stdoutLimit, int stderrLimit) {
        public Expectations {
            Objects.requireNonNull(recorderRefusal, "recorderRefusal");
        }
    }

    /**
     * The decision, before the staging directory's fate is known.
     *
     * @param status the status
     * @param errors the errors, in order: cause, output, detached, supervisor faults, cleanup
     * @param output the validated output (success only)
     * @param cleanup proven, unknown or not started
     * @param descendantsSeen as reported
     * @param detachedSeen as reported
     * @param exit as reported
     * @param hardening as reported ({@code NONE} for a refusal)
     * @param confinement as reported ({@code NONE} for a refusal)
     */
    public record Decision(
            ExecutionStatus status,
            List<Diagnostic> errors,
            Optional<String> output,
            CleanupStatus cleanup,
            int descendantsSeen,
            boolean detachedSeen,
            ProcessExit exit,
            HardeningLayer hardening,
            Confinement confinement) {
        /** A decision without kernel confinement. */
        public Decision(
                ExecutionStatus status,
                List<Diagnostic> errors,
                Optional<String> output,
                CleanupStatus cleanup,
                int descendantsSeen,
                boolean detachedSeen,
                ProcessExit exit,
                HardeningLayer hardening) {
            this(status, errors, output, cleanup, descendantsSeen, detachedSeen, exit, hardening, Confinement.NONE);
        }

        public Decision {
            errors = List.copyOf(errors);
            java.util.Objects.requireNonNull(confinement, "confinement");
        }

        /** Whether the staging directory may be removed: cleanup proven, or nothing started. */
        public boolean mayRemoveStaging() {
            return cleanup != CleanupStatus.UNKNOWN;
        }

        /**
         * The envelope. A retained staging directory is named in the cleanup report and always
         * carries a {@code STAGING_RETAINED} warning, whatever the status (a success included: the
         * script's result stands, the directory it leaves behind is reported).
         *
         * @param runtimeSha256 the pinned digest the runtime was verified against, if any; kept only
         *     when the runtime version is reported (not for a refusal)
         */
        public ExecutionEnvelope toEnvelope(
                RunId runId,
                Optional<Revision> revision,
                Optional<String> runtimeVersion,
                Optional<Sha256Digest> runtimeSha256,
                Duration elapsed,
                Optional<Path> retainedStaging) {
            List<Diagnostic> all = new ArrayList<>(errors);
            if (retainedStaging.isPresent()) {
                all.add(Diagnostic.warning(
                        ErrorCode.STAGING_RETAINED,
                        "",
                        cleanup == CleanupStatus.UNKNOWN
                                ? "the staging directory was retained because cleanup was not proven"
                                : "the staging directory could not be removed; it is kept and listed as"
                                        + " unresolved"));
            }
            CleanupReport report = switch (cleanup) {
                case PROVEN -> new CleanupReport(CleanupStatus.PROVEN, descendantsSeen, detachedSeen, retainedStaging);
                case UNKNOWN -> CleanupReport.unknown(descendantsSeen, detachedSeen, retainedStaging);
                case NOT_STARTED -> new CleanupReport(CleanupStatus.NOT_STARTED, 0, false, retainedStaging);
            };
            boolean refused = status == ExecutionStatus.REFUSED;
            Optional<String> version = refused ? Optional.empty() : runtimeVersion;
            return new ExecutionEnvelope(
                    status,
                    runId,
                    revision,
                    version,
                    elapsed,
                    exit,
                    output,
                    all,
                    report,
                    refused ? HardeningLayer.NONE : hardening,
                    version.isEmpty() ? Optional.empty() : runtimeSha256,
                    refused ? Confinement.NONE : confinement);
        }
    }

    /** Decides the outcome of one supervised run. */
    public static Decision decide(SupervisionResult r, Expectations expect, OutputCheck check) {
        Objects.requireNonNull(r, "r");
        Objects.requireNonNull(expect, "expect");
        Objects.requireNonNull(check, "check");
        SupervisionResult.CleanupEvidence evidence = r.cleanup();
        boolean notStartedClaim = evidence.proven() && evidence.proof().equals(NOTHING_STARTED);
        boolean refusalOutcome = r.outcome() == Outcome.SETUP_FAILED || r.outcome() == Outcome.SPAWN_FAILED;
        List<Diagnostic> errors = new ArrayList<>();

        if (notStartedClaim && refusalOutcome) {
            errors.add(refusalCause(r, expect));
            return new Decision(
                    ExecutionStatus.REFUSED,
                    errors,
                    Optional.empty(),
                    CleanupStatus.NOT_STARTED,
                    0,
                    false,
                    ProcessExit.notObserved(),
                    HardeningLayer.NONE);
        }

        // Something (may have) started. A "nothing started" proof for a run that did start is a lie.
        boolean proven = evidence.proven() && !notStartedClaim;
        if (notStartedClaim) {
            errors.add(protocol("the supervisor claimed nothing started for a run that ended " + r.outcome()));
        }
        if (refusalOutcome && !notStartedClaim) {
            errors.add(refusalCause(r, expect));
        }
        if (!expect.ownershipRecorded() && !refusalOutcome) {
            errors.add(protocol("the supervisor started the script without recording ownership"));
        }
        boolean sizesOk = r.stdoutSize() <= expect.stdoutLimit() && r.stderrSize() <= expect.stderrLimit();
        if (!sizesOk) {
            errors.add(protocol("the supervisor returned more output than the limits allow"));
        }

        // The module guard's line on stderr (decision 0510) names the cause and fails the run whatever the
        // exit: a script that prints it only fails itself. Its own exit (code 86, or SIGKILL from a worker
        // thread) is then not reported a second time.
        Optional<ErrorCode> guard = r.stderrSize() == 0 ? Optional.empty() : ModuleGuard.report(r.stderr());
        guard.ifPresent(code -> errors.add(Diagnostic.error(code, "", guardMessage(code))));
        Optional<String> output = Optional.empty();
        switch (r.outcome()) {
            case EXITED -> {
                if (r.exit() instanceof ProcessExit.Code c && c.code() != 0) {
                    if (guard.isEmpty() || c.code() != ModuleGuard.CHANGED_EXIT) {
                        errors.add(Diagnostic.error(
                                ErrorCode.EXEC_NONZERO_EXIT, "", "the script exited with code " + c.code()));
                    }
                } else if (r.exit() instanceof ProcessExit.Signal s) {
                    if (guard.isEmpty()) {
                        errors.add(signalled(s));
                    }
                } else if (r.exit() instanceof ProcessExit.NotObserved) {
                    errors.add(protocol("the supervisor reported an exit it did not observe"));
                } else if (errors.isEmpty()) {
                    // The accessor's copy is the only one: it is validated in place and then handed to the check.
                    Result checked = checkOutput(r.stdout(), check);
                    errors.addAll(checked.errors);
                    output = checked.output;
                }
            }
            case SIGNALED -> {
                if (guard.isEmpty()) {
                    errors.add(
                            r.exit() instanceof ProcessExit.Signal s
                                    ? signalled(s)
                                    : Diagnostic.error(
                                            ErrorCode.EXEC_SIGNALLED, "", "the script was ended by a signal"));
                }
            }
            case TIMED_OUT ->
                errors.add(Diagnostic.error(ErrorCode.EXEC_TIMEOUT, "", "the script ran past its deadline"));
            case CANCELLED ->
                errors.add(
                        Diagnostic.error(ErrorCode.EXEC_CANCELLED, "", "the run was cancelled while the script ran"));
            case STDOUT_LIMIT ->
                errors.add(Diagnostic.error(
                        ErrorCode.OUTPUT_LIMIT, "stdout", "stdout exceeded " + expect.stdoutLimit() + " bytes"));
            case STDERR_LIMIT ->
                errors.add(Diagnostic.error(
                        ErrorCode.OUTPUT_LIMIT, "stderr", "stderr exceeded " + expect.stderrLimit() + " bytes"));
            case SUPERVISOR_FAILED ->
                errors.add(Diagnostic.error(
                        detailCode(r.detail()).orElse(ErrorCode.SUPERVISOR_DIED),
                        "",
                        "the supervisor failed: " + Text.excerpt(r.detail())));
            case SETUP_FAILED, SPAWN_FAILED -> {
                // Already reported above.
            }
        }
        if (evidence.detachedSeen()) {
            errors.add(Diagnostic.error(
                    ErrorCode.DETACHED_DESCENDANTS, "", "a descendant outlived the script or left its process group"));
        }
        if (!proven) {
            errors.add(
                    Diagnostic.error(ErrorCode.CLEANUP_UNKNOWN, "", "cleanup of the process tree could not be proven"));
        }

        ExecutionStatus status;
        if (!proven) {
            status = ExecutionStatus.CLEANUP_UNKNOWN;
        } else {
            status = switch (r.outcome()) {
                case TIMED_OUT -> ExecutionStatus.TIMED_OUT;
                case CANCELLED -> ExecutionStatus.CANCELLED;
                case STDOUT_LIMIT, STDERR_LIMIT -> ExecutionStatus.OUTPUT_LIMIT;
                default -> errors.isEmpty() && output.isPresent() ? ExecutionStatus.SUCCEEDED : ExecutionStatus.FAILED;
            };
        }
        if (status != ExecutionStatus.SUCCEEDED) {
            output = Optional.empty();
        }
        if (status != ExecutionStatus.SUCCEEDED && errors.isEmpty()) {
            // Unreachable by construction; fail closed with a code rather than build a misleading envelope.
            errors.add(protocol("no success and no recorded cause"));
        }
        return new Decision(
                status,
                errors,
                output,
                proven ? CleanupStatus.PROVEN : CleanupStatus.UNKNOWN,
                evidence.descendantsSeen(),
                evidence.detachedSeen(),
                r.exit(),
                r.hardening(),
                r.confinement());
    }

    private record Result(List<Diagnostic> errors, Optional<String> output) {}

    private static Result checkOutput(byte[] stdout, OutputCheck check) {
        if (stdout.length == 0) {
            return new Result(
                    List.of(Diagnostic.error(ErrorCode.OUTPUT_EMPTY, "stdout", "the script wrote no result")),
                    Optional.empty());
        }
        if (!isStrictUtf8(stdout)) {
            return new Result(
                    List.of(Diagnostic.error(ErrorCode.OUTPUT_INVALID_UTF8, "stdout", "stdout is not valid UTF-8")),
                    Optional.empty());
        }
        OutputCheck.Result verdict;
        try {
            // stdout is this mapper's own copy (SupervisionResult.stdout() copies) and is not used again.
            verdict = check.check(stdout);
        } catch (RuntimeException e) {
            verdict = null;
        }
        if (verdict instanceof OutputCheck.Valid v) {
            return new Result(List.of(), Optional.of(v.json()));
        }
        if (verdict instanceof OutputCheck.Invalid inv) {
            return new Result(inv.diagnostics(), Optional.empty());
        }
        return new Result(
                List.of(Diagnostic.error(ErrorCode.OUTPUT_NOT_JSON, "stdout", "the output check failed")),
                Optional.empty());
    }

    /** Characters decoded per step while validating; the text itself is never kept. */
    private static final int UTF8_CHUNK_CHARS = 1024;

    /**
     * Whether {@code bytes} are strict UTF-8 ({@code CodingErrorAction.REPORT}), decoded through a
     * fixed 1,024-character window so that validating costs a constant, not a second copy of the output.
     */
    static boolean isStrictUtf8(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer window = CharBuffer.allocate(UTF8_CHUNK_CHARS);
        while (true) {
            CoderResult cr = decoder.decode(in, window, true);
            if (cr.isError()) {
                return false;
            }
            window.clear();
            if (cr.isUnderflow()) {
                break;
            }
        }
        while (true) {
            CoderResult cr = decoder.flush(window);
            if (cr.isError()) {
                return false;
            }
            window.clear();
            if (cr.isUnderflow()) {
                return true;
            }
        }
    }

    private static Diagnostic refusalCause(SupervisionResult r, Expectations expect) {
        if (expect.recorderRefusal().isPresent()) {
            ErrorCode code = expect.recorderRefusal().get();
            return Diagnostic.error(code, "", refusalMessage(code));
        }
        Optional<ErrorCode> fromDetail = detailCode(r.detail());
        ErrorCode code = fromDetail.orElse(
                r.outcome() == Outcome.SPAWN_FAILED ? ErrorCode.EXEC_SPAWN_FAILED : ErrorCode.SUPERVISOR_UNAVAILABLE);
        return Diagnostic.error(code, "", "the process was not started: " + Text.excerpt(r.detail()));
    }

    private static String refusalMessage(ErrorCode code) {
        return switch (code) {
            case STAGING_TAMPERED -> "a staged file differs from the captured revision before spawn";
            case EXEC_ABORTED -> "the run was aborted before the process started";
            default -> "the ownership record could not be written before spawn";
        };
    }

    /** An error code named at the start of a supervisor's detail ({@code "CODE: ..."}), from the allowed groups. */
    static Optional<ErrorCode> detailCode(String detail) {
        Matcher m = DETAIL_CODE.matcher(detail);
        if (!m.find()) {
            return Optional.empty();
        }
        try {
            ErrorCode code = ErrorCode.valueOf(m.group(1));
            return DETAIL_GROUPS.contains(code.group()) ? Optional.of(code) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String guardMessage(ErrorCode code) {
        return code == ErrorCode.STAGED_MODULE_CHANGED
                ? "a staged module differed from the approved bytes when Node loaded it; the run was ended"
                : "this Node version could not take the module guard; nothing of the skill ran";
    }

    private static Diagnostic signalled(ProcessExit.Signal s) {
        return Diagnostic.error(ErrorCode.EXEC_SIGNALLED, "", "the script was ended by signal " + s.signal());
    }

    private static Diagnostic protocol(String message) {
        return Diagnostic.error(ErrorCode.SUPERVISOR_PROTOCOL, "", message);
    }
}
