package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The record types for settlements, resolutions and workflow plans (schema version 1): exact
 * canonical payloads, strict decoding (every variant the writer cannot produce is invalid), no type
 * confusion, and the tail rule — an unconfirmed record of these types beyond the commit point is
 * quarantined, because none of them reduces trust.
 */
class EvidenceRecordsTest {
    private static final Instant AT = Instant.parse("2026-03-01T10:00:00.123Z");

    @TempDir
    Path tmp;

    static List<AuditEvent> samples() {
        List<AuditEvent> out = new ArrayList<>();
        for (int n = 0; n < 12; n++) {
            out.addAll(Fixtures.evidence(n));
            out.add(withRuntime(Fixtures.settled(n)));
        }
        return out;
    }

    private static String text(AuditEvent event) {
        return new String(Payloads.encode(event, AT), StandardCharsets.UTF_8);
    }

    private static AuditEvent decode(RecordType type, String payload) throws Frames.FormatException {
        byte[] b = payload.getBytes(StandardCharsets.UTF_8);
        return Payloads.decode(type, b, 0, b.length).event();
    }

    @Test
    void theSettlementPayloadIsExactlyTheDocumentedForm() {
        AuditEvent.Settled s = Fixtures.settled(1);
        assertThat(text(s))
                .isEqualTo(
                        "{\"agent\":\"agent-1\",\"authority\":\"TRUSTED_REVISION\",\"cleanup\":\"UNKNOWN\",\"early\":true,"
                                + "\"errors\":\"EXEC_CANCELLED,CLEANUP_UNKNOWN,STAGING_RETAINED\",\"layer\":\"L0\","
                                + "\"recordedAt\":\"2026-03-01T10:00:00.123Z\",\"revision\":\"" + s.revision()
                                + "\",\"run\":\"run-1\",\"status\":\"CLEANUP_UNKNOWN\",\"v\":1}");
        // No codes: the field is omitted, never an empty string.
        assertThat(text(Fixtures.settled(0))).doesNotContain("errors").contains("\"early\":false");
    }

    /** The settlement with the runtime digest the launch was verified against (an optional field). */
    static AuditEvent.Settled withRuntime(AuditEvent.Settled s) {
        return new AuditEvent.Settled(
                s.run(),
                s.agent(),
                s.revision(),
                s.authority(),
                s.status(),
                s.cleanup(),
                s.layer(),
                s.errors(),
                s.earlyDelivery(),
                java.util.Optional.of(dev.skillgate.model.Sha256Digest.hash(new byte[] {42})));
    }

    @Test
    void theRuntimeDigestIsAnOptionalFieldThatRoundTripsAndOlderRecordsStillDecode() throws Exception {
        AuditEvent.Settled without = Fixtures.settled(2);
        AuditEvent.Settled with = withRuntime(without);
        String digest = with.runtimeSha256().orElseThrow().toString();
        assertThat(text(with))
                .isEqualTo(text(without)
                        .replace("\"run\":\"run-2\",", "\"run\":\"run-2\",\"runtime\":\"" + digest + "\","));
        assertThat(decode(RecordType.SETTLE, text(with))).isEqualTo(with);
        // A record written before the field existed has none, and still decodes.
        assertThat(decode(RecordType.SETTLE, text(without))).isEqualTo(without);
        assertThat(((AuditEvent.Settled) decode(RecordType.SETTLE, text(without))).runtimeSha256())
                .isEmpty();
        for (String bad : List.of("sha1:00", "", digest.toUpperCase(java.util.Locale.ROOT))) {
            assertThatThrownBy(() -> decode(RecordType.SETTLE, text(with).replace(digest, bad)))
                    .as(bad)
                    .isInstanceOf(Frames.FormatException.class);
        }
        assertThatThrownBy(() -> decode(RecordType.SETTLE, text(with).replace("\"" + digest + "\"", "7")))
                .isInstanceOf(Frames.FormatException.class);
    }

    @Test
    void theResolutionPayloadIsExactlyTheDocumentedForm() {
        AuditEvent.Resolved r = Fixtures.resolved(1);
        assertThat(text(r))
                .isEqualTo(
                        "{\"attempt\":\"00000000000000000000000000000002\",\"recordedAt\":\"2026-03-01T10:00:00.123Z\","
                                + "\"revision\":\"" + r.revision().orElseThrow() + "\",\"run\":\"run-1\","
                                + "\"stager\":{\"pid\":1001,\"token\":\"jdk:1700000000001\"},"
                                + "\"supervisor\":{\"pid\":2001,\"token\":\"47111\"},\"v\":1}");
        assertThat(text(Fixtures.resolved(0))).doesNotContain("revision").doesNotContain("supervisor");
    }

    @ParameterizedTest
    @MethodSource("samples")
    void everyRecordRoundTripsToItsOwnBytesAndOnlyUnderItsOwnType(AuditEvent event) throws Exception {
        RecordType type = Payloads.typeOf(event);
        byte[] bytes = Payloads.encode(event, AT);
        Payloads.Decoded d = Payloads.decode(type, bytes, 0, bytes.length);
        assertThat(d.event()).isEqualTo(event);
        assertThat(d.recordedAt()).isEqualTo(AT);
        assertThat(Payloads.encode(d.event(), d.recordedAt())).isEqualTo(bytes);
        for (RecordType other : RecordType.values()) {
            if (other != type) {
                assertThatThrownBy(() -> Payloads.decode(other, bytes, 0, bytes.length))
                        .as("%s decoded as %s", type, other)
                        .isInstanceOf(Frames.FormatException.class);
            }
        }
    }

    static Stream<String[]> settleVariants() {
        String good = text(Fixtures.settled(1));
        return Stream.of(
                new String[] {"errors empty", good.replace("EXEC_CANCELLED,CLEANUP_UNKNOWN,STAGING_RETAINED", "")},
                new String[] {
                    "empty entry", good.replace("EXEC_CANCELLED,CLEANUP_UNKNOWN", "EXEC_CANCELLED,,CLEANUP_UNKNOWN")
                },
                new String[] {"trailing comma", good.replace("STAGING_RETAINED\"", "STAGING_RETAINED,\"")},
                new String[] {"space", good.replace("EXEC_CANCELLED,CLEANUP", "EXEC_CANCELLED, CLEANUP")},
                new String[] {"repeated code", good.replace("STAGING_RETAINED", "EXEC_CANCELLED")},
                new String[] {"unknown code", good.replace("STAGING_RETAINED", "NOT_A_CODE")},
                new String[] {"lower-case code", good.replace("STAGING_RETAINED", "staging_retained")},
                new String[] {"unknown status", good.replace("\"status\":\"CLEANUP_UNKNOWN\"", "\"status\":\"DONE\"")},
                new String[] {
                    "lower-case status",
                    good.replace("\"status\":\"CLEANUP_UNKNOWN\"", "\"status\":\"cleanup_unknown\"")
                },
                new String[] {"unknown cleanup", good.replace("\"cleanup\":\"UNKNOWN\"", "\"cleanup\":\"MAYBE\"")},
                new String[] {"unknown layer", good.replace("\"layer\":\"L0\"", "\"layer\":\"L9\"")},
                new String[] {"unknown authority", good.replace("TRUSTED_REVISION", "ADMIN")},
                new String[] {"early not boolean", good.replace("\"early\":true", "\"early\":1")},
                new String[] {"early missing", good.replace("\"early\":true,", "")},
                new String[] {"run missing", good.replace("\"run\":\"run-1\",", "")},
                new String[] {"extra field", good.replace("\"v\":1}", "\"v\":1,\"x\":\"y\"}")},
                new String[] {"a path", good.replace("\"layer\"", "\"path\":\"/tmp/x\",\"layer\"")},
                new String[] {"bad revision", good.replace("\"revision\":\"sha256:", "\"revision\":\"sha1:")});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("settleVariants")
    void settlementVariantsTheWriterCannotProduceAreInvalid(String name, String payload) {
        assertThatThrownBy(() -> decode(RecordType.SETTLE, payload))
                .as(name)
                .isInstanceOf(Frames.FormatException.class);
    }

    static Stream<String[]> otherVariants() {
        String resolved = text(Fixtures.resolved(1));
        String plan = text(Fixtures.planApproved(3));
        String step = text(Fixtures.planStep(3));
        return Stream.of(
                new String[] {"RESOLVE", "short attempt", resolved.replace("00000000000000000000000000000002", "02")},
                new String[] {
                    "RESOLVE",
                    "upper-case attempt",
                    resolved.replace("00000000000000000000000000000002", "0000000000000000000000000000000A")
                },
                new String[] {"RESOLVE", "pid zero", resolved.replace("\"pid\":1001", "\"pid\":0")},
                new String[] {"RESOLVE", "pid as text", resolved.replace("\"pid\":1001", "\"pid\":\"1001\"")},
                new String[] {"RESOLVE", "token with space", resolved.replace("jdk:1700000000001", "jdk 1")},
                new String[] {
                    "RESOLVE",
                    "stager extra key",
                    resolved.replace("\"token\":\"jdk:1700000000001\"}", "\"token\":\"jdk:1700000000001\",\"x\":1}")
                },
                new String[] {
                    "RESOLVE",
                    "stager missing",
                    resolved.replace("\"stager\":{\"pid\":1001,\"token\":\"jdk:1700000000001\"},", "")
                },
                new String[] {
                    "RESOLVE",
                    "supervisor not an object",
                    resolved.replace("\"supervisor\":{\"pid\":2001,\"token\":\"47111\"}", "\"supervisor\":\"2001\"")
                },
                new String[] {"RESOLVE", "extra field", resolved.replace("\"v\":1}", "\"v\":1,\"x\":\"y\"}")},
                new String[] {"PLAN_APPROVE", "no steps", plan.replace("\"steps\":4", "\"steps\":0")},
                new String[] {"PLAN_APPROVE", "65 steps", plan.replace("\"steps\":4", "\"steps\":65")},
                new String[] {"PLAN_APPROVE", "huge steps", plan.replace("\"steps\":4", "\"steps\":4294967300")},
                new String[] {
                    "PLAN_APPROVE",
                    "missing workspace",
                    plan.replaceFirst("\"workspace\":\"sha256:[0-9a-f]{64}\",?", "")
                },
                new String[] {"PLAN_STEP", "step 64", step.replace("\"step\":3", "\"step\":64")},
                new String[] {
                    "PLAN_STEP", "missing binding", step.replaceFirst("\"binding\":\"sha256:[0-9a-f]{64}\",", "")
                });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("otherVariants")
    void resolutionAndPlanVariantsTheWriterCannotProduceAreInvalid(String type, String name, String payload) {
        assertThatThrownBy(() -> decode(RecordType.valueOf(type), payload))
                .as(name)
                .isInstanceOf(Frames.FormatException.class);
    }

    @ParameterizedTest
    @MethodSource("samples")
    void anUnconfirmedEvidenceRecordBeyondTheCommitPointIsQuarantinedAndGrantsNothing(AuditEvent event)
            throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = open(dir)) {
            assertThat(log.approve(Fixtures.prompt(0)).isCommitted()).isTrue();
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
        }
        Path logFile = dir.resolve("audit.log");
        Head h = Head.parse(Files.readAllBytes(dir.resolve("audit.head")));
        byte[] frame = Frames.frame(h.sequence() + 1, Payloads.typeOf(event), Payloads.encode(event, AT), h.tip());
        Fixtures.append(logFile, frame);
        try (AuditLog log = open(dir)) {
            AuditStatus s = log.status();
            assertThat(s.state()).isEqualTo(AuditState.DEGRADED);
            assertThat(s.committedSequence()).isEqualTo(2);
            assertThat(s.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_TAIL_QUARANTINED);
            assertThat(s.diagnostics().get(0).message()).contains("grants nothing");
            assertThat(log.records(0, 10)).extracting(AuditRecord::event).doesNotContain(event);
            assertThat(log.isTrusted(Fixtures.prompt(0))).isTrue();
            assertThat(log.isTrusted(Fixtures.prompt(1))).isTrue();
            // Appends continue after the quarantine.
            assertThat(log.recordSettlement(Fixtures.settled(7)).isCommitted()).isTrue();
        }
        assertThat(Files.size(logFile)).isGreaterThan(h.length());
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().startsWith("audit.log.torn-")))
                    .hasSize(1);
        }
    }

    @Test
    void aCommittedEvidenceRecordWithAnInvalidPayloadDisablesTheLog() throws IOException {
        Path dir = tmp.resolve("audit");
        LogBuilder b = new LogBuilder(61).add(Fixtures.settled(1));
        String bad = text(Fixtures.settled(1)).replace("STAGING_RETAINED", "NOT_A_CODE");
        b.addRaw(RecordType.SETTLE.code, bad.getBytes(StandardCharsets.UTF_8));
        b.writeTo(dir, b.log(), b.head());
        try (AuditLog log = open(dir)) {
            AuditStatus s = log.status();
            assertThat(s.state()).isEqualTo(AuditState.DISABLED);
            assertThat(s.firstBadSequence()).hasValue(2);
            assertThat(s.diagnostics().get(0).message()).contains("invalid payload");
        }
    }

    private static AuditLog open(Path dir) {
        return AuditLog.open(
                AuditLogOptions.builder(dir).openWait(Duration.ofSeconds(30)).build());
    }
}
