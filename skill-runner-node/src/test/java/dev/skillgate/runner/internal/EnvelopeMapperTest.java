package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.OutputCheck;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import dev.skillgate.runner.TestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The success path and every failure mapping, with real {@link SupervisionResult} values as a
 * proving supervisor (the Linux one) would report them.
 */
class EnvelopeMapperTest {

    static final CleanupEvidence PROVEN = new CleanupEvidence(true, 1, false, "ECHILD");
    static final CleanupEvidence PROVEN_DETACHED = new CleanupEvidence(true, 3, true, "ECHILD");
    static final EnvelopeMapper.Expectations OK = new EnvelopeMapper.Expectations(true, Optional.empty(), 100, 16384);
    static final RunId RUN = RunId.of("run-1");
    static final Optional<Revision> REV = Optional.of(new Revision(Sha256Digest.hash(new byte[] {1})));

    static SupervisionResult result(Outcome outcome, ProcessExit exit, String stdout, CleanupEvidence cleanup) {
        return new SupervisionResult(
                outcome,
                exit,
                stdout.getBytes(StandardCharsets.UTF_8),
                new byte[0],
                cleanup,
                HardeningLayer.L1,
                Duration.ofMillis(80),
                "");
    }

    static ExecutionEnvelope envelope(EnvelopeMapper.Decision d, Optional<Path> retained) {
        return d.toEnvelope(RUN, REV, Optional.of("v20.20.2"), Optional.empty(), Duration.ofMillis(90), retained);
    }

    static ExecutionEnvelope map(SupervisionResult r) {
        EnvelopeMapper.Decision d = EnvelopeMapper.decide(r, OK, new TestSupport.StrictJsonCheck());
        return envelope(d, d.mayRemoveStaging() ? Optional.empty() : Optional.of(Path.of("/data/staging/x")));
    }

    @Test
    void provenCleanExitWithOneJsonValueSucceedsWithTheValidatedOutput() {
        ExecutionEnvelope e = map(result(Outcome.EXITED, ProcessExit.code(0), " {\"a\":1}\n", PROVEN));
        assertThat(e.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.output()).contains("{\"a\":1}");
        assertThat(e.errors()).isEmpty();
        assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(e.cleanup().retainedStaging()).isEmpty();
        assertThat(e.hardening()).isEqualTo(HardeningLayer.L1);
        assertThat(e.runtimeVersion()).contains("v20.20.2");
        assertThat(e.revision()).isEqualTo(REV);
    }

    @Test
    void aSuccessWhoseStagingCouldNotBeRemovedStillSucceedsAndAlwaysSaysSo() {
        EnvelopeMapper.Decision d = EnvelopeMapper.decide(
                result(Outcome.EXITED, ProcessExit.code(0), "{\"a\":1}", PROVEN),
                OK,
                new TestSupport.StrictJsonCheck());
        Path kept = Path.of("/data/staging/x");
        ExecutionEnvelope e = envelope(d, Optional.of(kept));
        assertThat(e.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.output()).contains("{\"a\":1}");
        assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(e.cleanup().retainedStaging()).contains(kept);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGING_RETAINED);
        assertThat(e.errors().get(0).isError()).isFalse();
        assertThat(e.errors().get(0).message()).contains("could not be removed");
    }

    @Test
    void theRuntimeDigestIsReportedWithTheVersionAndNeverForARefusal() {
        dev.skillgate.model.Sha256Digest digest = dev.skillgate.model.Sha256Digest.hash(new byte[] {1});
        EnvelopeMapper.Decision ok = EnvelopeMapper.decide(
                result(Outcome.EXITED, ProcessExit.code(0), "{\"a\":1}", PROVEN),
                OK,
                new TestSupport.StrictJsonCheck());
        assertThat(ok.toEnvelope(
                                RUN,
                                REV,
                                Optional.of("v20.20.2"),
                                Optional.of(digest),
                                Duration.ofMillis(1),
                                Optional.empty())
                        .runtimeSha256())
                .contains(digest);
        EnvelopeMapper.Decision refused = EnvelopeMapper.decide(
                new SupervisionResult(
                        Outcome.SETUP_FAILED,
                        ProcessExit.notObserved(),
                        new byte[0],
                        new byte[0],
                        CleanupEvidence.nothingStarted(),
                        HardeningLayer.L1,
                        Duration.ZERO,
                        "RUNTIME_MISMATCH: executable digest mismatch"),
                OK,
                new TestSupport.StrictJsonCheck());
        ExecutionEnvelope r = refused.toEnvelope(
                RUN, REV, Optional.of("v20.20.2"), Optional.of(digest), Duration.ofMillis(1), Optional.empty());
        assertThat(r.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(r.errorCodes()).containsExactly(ErrorCode.RUNTIME_MISMATCH);
        assertThat(r.runtimeVersion()).isEmpty();
        assertThat(r.runtimeSha256()).isEmpty();
    }

    @Test
    void outputAtTheLimitIsCheckedAndOneByteMoreFromASupervisorIsAProtocolFault() {
        String atLimit = "\"" + "a".repeat(98) + "\"";
        assertThat(map(result(Outcome.EXITED, ProcessExit.code(0), atLimit, PROVEN))
                        .status())
                .isEqualTo(ExecutionStatus.SUCCEEDED);
        ExecutionEnvelope over = map(result(Outcome.EXITED, ProcessExit.code(0), atLimit + " ", PROVEN));
        assertThat(over.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(over.errorCodes()).containsExactly(ErrorCode.SUPERVISOR_PROTOCOL);
    }

    @Test
    void everyNonSuccessCarriesNoOutputAndTheRightCodes() {
        record Case(SupervisionResult r, ExecutionStatus status, List<ErrorCode> codes) {}
        List<Case> cases = List.of(
                new Case(
                        result(Outcome.EXITED, ProcessExit.code(3), "{\"ok\":true}", PROVEN),
                        ExecutionStatus.FAILED,
                        List.of(ErrorCode.EXEC_NONZERO_EXIT)),
                new Case(
                        result(Outcome.EXITED, ProcessExit.code(0), "", PROVEN),
                        ExecutionStatus.FAILED,
                        List.of(ErrorCode.OUTPUT_EMPTY)),
                new Case(
                        result(Outcome.EXITED, ProcessExit.code(0), "{\"a\":1}{\"b\":2}", PROVEN),
                        ExecutionStatus.FAILED,
                        List.of(ErrorCode.OUTPUT_NOT_JSON)),
                new Case(
                        result(Outcome.EXITED, ProcessExit.code(0), "{\"a\":1}", PROVEN_DETACHED),
                        ExecutionStatus.FAILED,
                        List.of(ErrorCode.DETACHED_DESCENDANTS)),
                new Case(
                        result(Outcome.SIGNALED, ProcessExit.signal(9), "{\"a\":1}", PROVEN),
                        ExecutionStatus.FAILED,
                        List.of(ErrorCode.EXEC_SIGNALLED)),
                new Case(
                        result(Outcome.TIMED_OUT, ProcessExit.signal(9), "{\"partial\": [1, ", PROVEN),
                        ExecutionStatus.TIMED_OUT,
                        List.of(ErrorCode.EXEC_TIMEOUT)),
                new Case(
                        result(Outcome.CANCELLED, ProcessExit.signal(15), "{\"a\":1}", PROVEN),
                        ExecutionStatus.CANCELLED,
                        List.of(ErrorCode.EXEC_CANCELLED)),
                new Case(
                        result(Outcome.STDOUT_LIMIT, ProcessExit.signal(15), "x".repeat(100), PROVEN),
                        ExecutionStatus.OUTPUT_LIMIT,
                        List.of(ErrorCode.OUTPUT_LIMIT)),
                new Case(
                        result(Outcome.STDERR_LIMIT, ProcessExit.signal(15), "{\"a\":1}", PROVEN),
                        ExecutionStatus.OUTPUT_LIMIT,
                        List.of(ErrorCode.OUTPUT_LIMIT)),
                new Case(
                        result(Outcome.EXITED, ProcessExit.code(0), "{\"a\":1}", CleanupEvidence.unproven(2, false)),
                        ExecutionStatus.CLEANUP_UNKNOWN,
                        List.of(ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED)),
                new Case(
                        result(Outcome.TIMED_OUT, ProcessExit.signal(9), "", CleanupEvidence.unproven(1, true)),
                        ExecutionStatus.CLEANUP_UNKNOWN,
                        List.of(
                                ErrorCode.EXEC_TIMEOUT,
                                ErrorCode.DETACHED_DESCENDANTS,
                                ErrorCode.CLEANUP_UNKNOWN,
                                ErrorCode.STAGING_RETAINED)),
                new Case(
                        new SupervisionResult(
                                Outcome.SUPERVISOR_FAILED,
                                ProcessExit.notObserved(),
                                new byte[0],
                                new byte[0],
                                CleanupEvidence.unproven(0, false),
                                HardeningLayer.L0,
                                Duration.ZERO,
                                "helper killed"),
                        ExecutionStatus.CLEANUP_UNKNOWN,
                        List.of(ErrorCode.SUPERVISOR_DIED, ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED)),
                new Case(
                        new SupervisionResult(
                                Outcome.SPAWN_FAILED,
                                ProcessExit.notObserved(),
                                new byte[0],
                                new byte[0],
                                CleanupEvidence.nothingStarted(),
                                HardeningLayer.L0,
                                Duration.ZERO,
                                "ENOENT"),
                        ExecutionStatus.REFUSED,
                        List.of(ErrorCode.EXEC_SPAWN_FAILED)),
                new Case(
                        new SupervisionResult(
                                Outcome.SETUP_FAILED,
                                ProcessExit.notObserved(),
                                new byte[0],
                                new byte[0],
                                CleanupEvidence.nothingStarted(),
                                HardeningLayer.NONE,
                                Duration.ZERO,
                                "RUNTIME_MISMATCH: node digest differs"),
                        ExecutionStatus.REFUSED,
                        List.of(ErrorCode.RUNTIME_MISMATCH)),
                new Case(
                        new SupervisionResult(
                                Outcome.SETUP_FAILED,
                                ProcessExit.notObserved(),
                                new byte[0],
                                new byte[0],
                                CleanupEvidence.nothingStarted(),
                                HardeningLayer.NONE,
                                Duration.ZERO,
                                "CONSENT_DENIED: a code from a foreign group is ignored"),
                        ExecutionStatus.REFUSED,
                        List.of(ErrorCode.SUPERVISOR_UNAVAILABLE)));
        for (Case c : cases) {
            ExecutionEnvelope e = map(c.r);
            assertThat(e.status()).as(c.r.toString()).isEqualTo(c.status);
            assertThat(e.errorCodes()).as(c.r.toString()).containsExactlyElementsOf(c.codes);
            assertThat(e.output()).isEmpty();
        }
    }

    @Test
    void aRecorderRefusalBecomesTheRefusalCode() {
        SupervisionResult r = new SupervisionResult(
                Outcome.SETUP_FAILED,
                ProcessExit.notObserved(),
                new byte[0],
                new byte[0],
                CleanupEvidence.nothingStarted(),
                HardeningLayer.NONE,
                Duration.ZERO,
                "ownership record failed: IOException");
        EnvelopeMapper.Decision d = EnvelopeMapper.decide(
                r,
                new EnvelopeMapper.Expectations(false, Optional.of(ErrorCode.STAGING_TAMPERED), 100, 100),
                new TestSupport.StrictJsonCheck());
        ExecutionEnvelope e = envelope(d, Optional.empty());
        assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGING_TAMPERED);
        assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(d.mayRemoveStaging()).isTrue();
    }

    @Test
    void lyingOrSkippingSupervisorsNeverProduceASuccess() {
        // Claims "nothing started" for a run that exited with valid output.
        ExecutionEnvelope lie =
                map(result(Outcome.EXITED, ProcessExit.code(0), "{}", CleanupEvidence.nothingStarted()));
        assertThat(lie.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
        assertThat(lie.errorCodes()).contains(ErrorCode.SUPERVISOR_PROTOCOL, ErrorCode.CLEANUP_UNKNOWN);
        // Started the child without calling the ownership recorder (so no pre-spawn re-hash ran).
        EnvelopeMapper.Decision d = EnvelopeMapper.decide(
                result(Outcome.EXITED, ProcessExit.code(0), "{}", PROVEN),
                new EnvelopeMapper.Expectations(false, Optional.empty(), 100, 100),
                new TestSupport.StrictJsonCheck());
        assertThat(d.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(d.errors()).extracting(x -> x.code()).containsExactly(ErrorCode.SUPERVISOR_PROTOCOL);
        // Reports EXITED without an observed exit.
        assertThat(map(result(Outcome.EXITED, ProcessExit.notObserved(), "{}", PROVEN))
                        .errorCodes())
                .containsExactly(ErrorCode.SUPERVISOR_PROTOCOL);
    }

    @Test
    void invalidUtf8IsRejectedBeforeTheCheckRunsAndTruncatedOutputIsNeverChecked() {
        AtomicInteger calls = new AtomicInteger();
        OutputCheck counting = b -> {
            calls.incrementAndGet();
            return OutputCheck.valid("{}");
        };
        SupervisionResult bad = new SupervisionResult(
                Outcome.EXITED,
                ProcessExit.code(0),
                new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'},
                new byte[0],
                PROVEN,
                HardeningLayer.L0,
                Duration.ZERO,
                "");
        EnvelopeMapper.Decision d = EnvelopeMapper.decide(bad, OK, counting);
        assertThat(d.errors()).extracting(x -> x.code()).containsExactly(ErrorCode.OUTPUT_INVALID_UTF8);
        for (Outcome o : new Outcome[] {Outcome.STDOUT_LIMIT, Outcome.TIMED_OUT, Outcome.CANCELLED, Outcome.SIGNALED}) {
            EnvelopeMapper.decide(result(o, ProcessExit.signal(9), "{}", PROVEN), OK, counting);
        }
        EnvelopeMapper.decide(result(Outcome.EXITED, ProcessExit.code(1), "{}", PROVEN), OK, counting);
        assertThat(calls).hasValue(0);
        // A check that throws fails closed.
        EnvelopeMapper.Decision thrown =
                EnvelopeMapper.decide(result(Outcome.EXITED, ProcessExit.code(0), "{}", PROVEN), OK, b -> {
                    throw new IllegalStateException("bug");
                });
        assertThat(thrown.errors()).extracting(x -> x.code()).containsExactly(ErrorCode.OUTPUT_NOT_JSON);
    }

    /** Seeded property: success appears exactly when every condition holds; envelopes always build. */
    @Test
    void seededRandomResultsNeverSucceedWithoutEveryCondition() {
        Random random = new Random(7_2026L);
        String[] outputs = {"", "{}", "{\"a\":1}", "{} {}", "nul", "\"x\"", "[1,2"};
        for (int n = 0; n < 20_000; n++) {
            Outcome outcome = Outcome.values()[random.nextInt(Outcome.values().length)];
            ProcessExit exit = switch (random.nextInt(3)) {
                case 0 -> ProcessExit.code(random.nextInt(3));
                case 1 -> ProcessExit.signal(1 + random.nextInt(15));
                default -> ProcessExit.notObserved();
            };
            boolean proven = random.nextBoolean();
            boolean nothing = proven && random.nextInt(4) == 0;
            boolean detached = !nothing && random.nextBoolean();
            CleanupEvidence ev = nothing
                    ? CleanupEvidence.nothingStarted()
                    : proven
                            ? new CleanupEvidence(true, random.nextInt(5), detached, "ECHILD")
                            : CleanupEvidence.unproven(random.nextInt(5), detached);
            if (outcome == Outcome.SUPERVISOR_FAILED && ev.proven()) {
                continue;
            }
            String out = outputs[random.nextInt(outputs.length)];
            boolean recorded = random.nextInt(5) != 0;
            SupervisionResult r = result(outcome, exit, out, ev);
            EnvelopeMapper.Decision d = EnvelopeMapper.decide(
                    r,
                    new EnvelopeMapper.Expectations(recorded, Optional.empty(), 100, 100),
                    new TestSupport.StrictJsonCheck());
            ExecutionEnvelope e = envelope(d, d.mayRemoveStaging() ? Optional.empty() : Optional.of(Path.of("/s")));
            boolean shouldSucceed = outcome == Outcome.EXITED
                    && exit.isSuccess()
                    && proven
                    && !nothing
                    && !detached
                    && recorded
                    && (out.equals("{}") || out.equals("{\"a\":1}") || out.equals("\"x\""));
            assertThat(e.succeeded())
                    .as(r + " recorded=" + recorded + " out=" + out)
                    .isEqualTo(shouldSucceed);
            boolean refusal = nothing && (outcome == Outcome.SETUP_FAILED || outcome == Outcome.SPAWN_FAILED);
            boolean unknown = !refusal && !(proven && !nothing);
            assertThat(e.status() == ExecutionStatus.REFUSED).isEqualTo(refusal);
            assertThat(e.cleanup().status() == CleanupStatus.UNKNOWN).isEqualTo(unknown);
            assertThat(d.mayRemoveStaging()).isEqualTo(!unknown);
        }
    }
    /**
     * The windowed UTF-8 check (a constant 1,024-character window instead of a decoded copy of the
     * output) agrees with the JDK's one-shot strict decoder on seeded inputs built to put multi-byte
     * sequences, truncations, surrogates and overlong forms across the window's boundaries.
     */
    @Test
    void theWindowedUtf8CheckAgreesWithTheOneShotDecoder() {
        Random random = new Random(20261201);
        byte[][] pieces = {
            "a".getBytes(StandardCharsets.UTF_8),
            "é".getBytes(StandardCharsets.UTF_8),
            "€".getBytes(StandardCharsets.UTF_8),
            "😀".getBytes(StandardCharsets.UTF_8),
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a UTF-16 surrogate encoded: invalid
            {(byte) 0xC0, (byte) 0xAF}, // overlong '/': invalid
            {(byte) 0xF0, (byte) 0x9F}, // a truncated four-byte sequence
            {(byte) 0x80}, // a lone continuation byte
            {(byte) 0xFF}
        };
        int valid = 0;
        for (int n = 0; n < 2_000; n++) {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            int length = random.nextInt(3_000);
            boolean clean = random.nextInt(3) > 0;
            while (b.size() < length) {
                b.writeBytes(pieces[random.nextInt(clean ? 4 : pieces.length)]);
            }
            byte[] bytes = b.toByteArray();
            boolean expected;
            try {
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                        .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes));
                expected = true;
            } catch (java.nio.charset.CharacterCodingException e) {
                expected = false;
            }
            assertThat(EnvelopeMapper.isStrictUtf8(bytes)).as("input %d", n).isEqualTo(expected);
            valid += expected ? 1 : 0;
        }
        assertThat(valid).isBetween(500, 1_800); // both verdicts are exercised
    }
}
