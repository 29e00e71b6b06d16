package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Record type 11 ({@code LATE_ANSWER}, decision 0769): the exact payload, a real log, strict decoding. */
class LateAnswerRecordTest {
    private static final Instant AT = Instant.parse("2026-03-01T10:00:00.123Z");
    private static final String ID = "0b3f6a2e-8c1d-4e5f-9a7b-1c2d3e4f5a6b";
    private static final Revision REVISION = Revision.parse("sha256:" + "ab".repeat(32));

    private static AuditEvent.LateAnswer execution(boolean approved, long after) {
        return new AuditEvent.LateAnswer(
                AuditEvent.LateAnswer.Request.EXECUTION,
                ID,
                AgentId.of("agent-1"),
                Optional.of(RunId.of("run-1")),
                SkillName.of("hello-world"),
                REVISION,
                approved,
                after);
    }

    private static AuditEvent.LateAnswer activation() {
        return new AuditEvent.LateAnswer(
                AuditEvent.LateAnswer.Request.ACTIVATION,
                ID,
                AgentId.of("agent-1"),
                Optional.empty(),
                SkillName.of("release-notes"),
                REVISION,
                true,
                310_000);
    }

    @Test
    void thePayloadIsExactlyTheDocumentedForm() throws Exception {
        AuditEvent.LateAnswer e = execution(true, 3004);
        String text = new String(Payloads.encode(e, AT), StandardCharsets.UTF_8);
        assertThat(text)
                .isEqualTo("{\"afterMillis\":3004,\"agent\":\"agent-1\",\"approved\":true,\"id\":\"" + ID
                        + "\",\"recordedAt\":\"2026-03-01T10:00:00.123Z\",\"request\":\"EXECUTION\","
                        + "\"revision\":\"" + REVISION + "\",\"run\":\"run-1\",\"skill\":\"hello-world\",\"v\":1}");
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        assertThat(Payloads.decode(RecordType.LATE_ANSWER, b, 0, b.length).event())
                .isEqualTo(e);
        String act = new String(Payloads.encode(activation(), AT), StandardCharsets.UTF_8);
        assertThat(act).doesNotContain("\"run\"");
        byte[] a = act.getBytes(StandardCharsets.UTF_8);
        assertThat(Payloads.decode(RecordType.LATE_ANSWER, a, 0, a.length).event())
                .isEqualTo(activation());
        for (String bad : List.of(
                text.replace("EXECUTION", "REPLAY"),
                text.replace("\"approved\":true", "\"approved\":\"yes\""),
                text.replace("\"afterMillis\":3004", "\"afterMillis\":-1"),
                text.replace(",\"run\":\"run-1\"", ""),
                text.replace("\"v\":1", "\"v\":1,\"x\":\"y\""))) {
            byte[] x = bad.getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> Payloads.decode(RecordType.LATE_ANSWER, x, 0, x.length))
                    .as(bad)
                    .isInstanceOf(Exception.class);
        }
    }

    @Test
    void lateAnswersRoundTripThroughARealLogAndGrantNothing() throws Exception {
        List<AuditEvent.LateAnswer> events = List.of(execution(true, 3004), execution(false, 0), activation());
        Path dir = tmp.resolve("audit");
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir).build())) {
            for (AuditEvent.LateAnswer e : events) {
                AppendResult r = log.recordLateAnswer(e);
                assertThat(r.isCommitted()).as(r.toString()).isTrue();
            }
        }
        try (AuditLog log = AuditLog.openReadOnly(dir)) {
            assertThat(log.awaitReady(java.time.Duration.ofSeconds(30)).state()).isEqualTo(AuditState.OK);
            assertThat(log.records(0, 10)).extracting(AuditRecord::event).containsExactlyElementsOf(events);
            assertThat(log.list()).isEmpty();
        }
    }

    @Test
    void invalidValuesAreRefusedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> new AuditEvent.LateAnswer(
                        AuditEvent.LateAnswer.Request.EXECUTION,
                        ID,
                        AgentId.of("a"),
                        Optional.empty(),
                        SkillName.of("hello-world"),
                        REVISION,
                        true,
                        1))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new AuditEvent.LateAnswer(
                        AuditEvent.LateAnswer.Request.ACTIVATION,
                        "not-a-uuid",
                        AgentId.of("a"),
                        Optional.empty(),
                        SkillName.of("hello-world"),
                        REVISION,
                        true,
                        1))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> execution(true, -1)).isInstanceOf(InvalidValueException.class);
    }

    @TempDir
    Path tmp;
}
