package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.Outcome;
import dev.skillgate.runner.TestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The guard's argument, its version gate and how its report on stderr maps to the envelope. */
class ModuleGuardTest {

    @Test
    void theUrlCarriesTheApprovedDigestsTheRootAndTheEntryAndDecodesToTheShippedSource() {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        files.put(PortablePath.of("entry.mjs"), "import './lib/a.mjs';".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("lib/a.mjs"), "export {};".getBytes(StandardCharsets.UTF_8));
        String url = ModuleGuard.url(
                "/data/staging/x/bundle", "/data/staging/x/bundle/entry.mjs", PortablePath.of("entry.mjs"), files);
        assertThat(url).startsWith("data:text/javascript;base64,");
        String source = new String(
                Base64.getDecoder().decode(url.substring("data:text/javascript;base64,".length())),
                StandardCharsets.UTF_8);
        assertThat(source)
                .contains("\"root\":\"/data/staging/x/bundle\"", "\"entry\":\"entry.mjs\"")
                .contains("[\"lib/a.mjs\",\""
                        + Sha256Digest.hash("export {};".getBytes(StandardCharsets.UTF_8))
                                .hex() + "\"]")
                .doesNotContain("/*@GUARD_TABLE@*/")
                .endsWith("\n//# sourceURL=skillgate:module-guard\n");
        assertThat(source.substring(0, source.length() - 40)).doesNotContain("\n//");
        // The same inputs give the same argument: nothing random, nothing read from disk.
        assertThat(ModuleGuard.url(
                        "/data/staging/x/bundle",
                        "/data/staging/x/bundle/entry.mjs",
                        PortablePath.of("entry.mjs"),
                        files))
                .isEqualTo(url);
    }

    @Test
    void theFixedPartsEncodedOnceDecodeToTheShippedSourceWithTheTableInPlaceOfTheMarker() {
        // Decision 0872: the head and tail are encoded once; whatever the table's length modulo 3,
        // the argument decodes to the shipped source, the table and at most two spaces after it.
        String shipped = ModuleGuard.source();
        String marker = "/*@GUARD_TABLE@*/ null";
        int at = shipped.indexOf(marker);
        assertThat(at).isPositive();
        String head = shipped.substring(0, at);
        String tail = shipped.substring(at + marker.length());
        Map<PortablePath, byte[]> files = new TreeMap<>();
        files.put(PortablePath.of("entry.mjs"), "export {};".getBytes(StandardCharsets.UTF_8));
        java.util.Set<Integer> remainders = new java.util.HashSet<>();
        for (String root : new String[] {"/r", "/rr", "/rrr", "/é", "/éé"}) {
            String url = ModuleGuard.url(root, root + "/entry.mjs", PortablePath.of("entry.mjs"), files);
            byte[] decodedBytes = Base64.getDecoder().decode(url.substring("data:text/javascript;base64,".length()));
            String decoded = new String(decodedBytes, StandardCharsets.UTF_8);
            assertThat(decoded).startsWith(head).endsWith(tail);
            String middle = decoded.substring(head.length(), decoded.length() - tail.length());
            String table = "{\"root\":\"" + root + "\",\"entry\":\"entry.mjs\",\"entryArg\":\"" + root
                    + "/entry.mjs\",\"files\":[[\"entry.mjs\",\""
                    + Sha256Digest.hash("export {};".getBytes(StandardCharsets.UTF_8))
                            .hex() + "\"]]}";
            assertThat(middle).startsWith(table);
            assertThat(middle.substring(table.length())).matches(" {0,2}");
            remainders.add(table.getBytes(StandardCharsets.UTF_8).length % 3);
        }
        assertThat(remainders).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void sixtyFourFilesWithTheLongestPathsStillFitInOneArgument() {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 64; i++) {
            // About 1,020 UTF-8 bytes each, non-ASCII: the largest table a 64-file capture can have.
            String path = ("é".repeat(120) + "/").repeat(4) + String.format("%02d", i) + "é".repeat(25) + ".mjs";
            assertThat(path.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(PortablePath.MAX_PATH_BYTES);
            files.put(PortablePath.of(path), new byte[] {(byte) i});
        }
        String url = ModuleGuard.url(
                "/" + "d".repeat(1000), "/x.mjs", files.keySet().iterator().next(), files);
        assertThat(url.length()).isLessThanOrEqualTo(ModuleGuard.MAX_ARGUMENT_BYTES);
    }

    @Test
    void theVersionGate() {
        assertThat(ModuleGuard.supports(18, 20)).isFalse();
        assertThat(ModuleGuard.supports(20, 5)).isFalse();
        assertThat(ModuleGuard.supports(20, 6)).isTrue();
        assertThat(ModuleGuard.supports(26, 0)).isTrue();
        assertThat(ModuleGuard.flags(20, 20, "u")).containsExactly("--expose-internals", "--import", "u");
        assertThat(ModuleGuard.flags(22, 14, "u")).containsExactly("--expose-internals", "--import", "u");
        assertThat(ModuleGuard.flags(22, 15, "u")).containsExactly("--import", "u");
        assertThat(ModuleGuard.flags(23, 5, "u")).containsExactly("--import", "u");
        assertThat(ModuleGuard.flags(24, 0, "u")).containsExactly("--import", "u");
        assertThat(NodeFlags.forVersion(20, 20, Optional.of("u")))
                .endsWith("--unhandled-rejections=strict", "--expose-internals", "--import", "u", "--");
        assertThat(NodeFlags.forVersion(18, 20, Optional.of("u"))).doesNotContain("--import");
    }

    @Test
    void onlyAWholeTaggedLineCounts() {
        assertThat(ModuleGuard.report(bytes("\nskillgate-module-guard: STAGED_MODULE_CHANGED \"lib.mjs\"\n")))
                .contains(ErrorCode.STAGED_MODULE_CHANGED);
        assertThat(ModuleGuard.report(bytes("warning\nskillgate-module-guard: MODULE_GUARD_UNAVAILABLE \"v20\"\n")))
                .contains(ErrorCode.RUNTIME_UNAVAILABLE);
        assertThat(ModuleGuard.report(bytes("x skillgate-module-guard: STAGED_MODULE_CHANGED \"a\"\n")))
                .isEmpty();
        assertThat(ModuleGuard.report(bytes("skillgate-module-guard: SOMETHING \"a\"\n")))
                .isEmpty();
        assertThat(ModuleGuard.report(new byte[0])).isEmpty();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static ExecutionEnvelope map(Outcome outcome, ProcessExit exit, String stdout, String stderr) {
        SupervisionResult r = new SupervisionResult(
                outcome,
                exit,
                bytes(stdout),
                bytes(stderr),
                EnvelopeMapperTest.PROVEN,
                HardeningLayer.L1,
                Duration.ofMillis(80),
                "");
        return EnvelopeMapperTest.envelope(
                EnvelopeMapper.decide(r, EnvelopeMapperTest.OK, new TestSupport.StrictJsonCheck()), Optional.empty());
    }

    static final String TAGGED = "\nskillgate-module-guard: STAGED_MODULE_CHANGED \"lib.mjs\"\n";

    @Test
    void theGuardsExitIsReportedAsTheChangedModuleAlone() {
        ExecutionEnvelope e = map(Outcome.EXITED, ProcessExit.code(ModuleGuard.CHANGED_EXIT), "", TAGGED);
        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGED_MODULE_CHANGED);
        assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
    }

    @Test
    void aWorkerThreadsKillIsReportedAsTheChangedModuleAlone() {
        ExecutionEnvelope e = map(Outcome.SIGNALED, ProcessExit.signal(9), "", TAGGED);
        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGED_MODULE_CHANGED);
    }

    @Test
    void aTaggedLineFailsEvenAnExitZeroWithValidOutputAndIsNeverCheckedAsOutput() {
        // A forked child's guard, or a script that prints the line itself: either way, never a success.
        ExecutionEnvelope e = map(Outcome.EXITED, ProcessExit.code(0), "{\"ok\":true}", "noise" + TAGGED);
        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGED_MODULE_CHANGED);
        assertThat(e.output()).isEmpty();
    }

    @Test
    void exitCode86WithoutTheLineIsAnOrdinaryNonZeroExit() {
        ExecutionEnvelope e = map(Outcome.EXITED, ProcessExit.code(86), "", "");
        assertThat(e.errorCodes()).containsExactly(ErrorCode.EXEC_NONZERO_EXIT);
    }

    @Test
    void aTimeoutKeepsItsStatusAndNamesTheGuardToo() {
        ExecutionEnvelope e = map(Outcome.TIMED_OUT, ProcessExit.signal(9), "", TAGGED);
        assertThat(e.status()).isEqualTo(ExecutionStatus.TIMED_OUT);
        assertThat(e.errorCodes()).containsExactly(ErrorCode.STAGED_MODULE_CHANGED, ErrorCode.EXEC_TIMEOUT);
    }
}
