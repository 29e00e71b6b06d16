package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.RunId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Record type 10 ({@code WORKFLOW}): the exact payload, a round trip through a real log, strict decoding. */
class WorkflowRecordTest {
    private static final Instant AT = Instant.parse("2026-03-01T10:00:00.123Z");
    private static final String ID = "0b3f6a2e-8c1d-4e5f-9a7b-1c2d3e4f5a6b";

    @TempDir
    Path tmp;

    private static AuditEvent.WorkflowChanged event(AuditEvent.WorkflowChanged.Action action, String detail) {
        return new AuditEvent.WorkflowChanged(action, ID, RunId.of("run-1"), detail);
    }

    @Test
    void thePayloadIsExactlyTheDocumentedForm() throws Exception {
        AuditEvent.WorkflowChanged e = event(AuditEvent.WorkflowChanged.Action.DECIDE, "step 1 EFFECT_ABSENT");
        String text = new String(Payloads.encode(e, AT), StandardCharsets.UTF_8);
        assertThat(text)
                .isEqualTo(
                        "{\"action\":\"DECIDE\",\"detail\":\"step 1 EFFECT_ABSENT\",\"recordedAt\":\"2026-03-01T10:00:00.123Z\","
                                + "\"run\":\"run-1\",\"v\":1,\"workflow\":\"" + ID + "\"}");
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        assertThat(Payloads.decode(RecordType.WORKFLOW, b, 0, b.length).event()).isEqualTo(e);
        byte[] unknown = text.replace("DECIDE", "REPLAY").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> Payloads.decode(RecordType.WORKFLOW, unknown, 0, unknown.length))
                .isInstanceOf(Exception.class);
        byte[] extra = text.replace("\"v\":1", "\"v\":1,\"x\":\"y\"").getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> Payloads.decode(RecordType.WORKFLOW, extra, 0, extra.length))
                .isInstanceOf(Exception.class);
    }

    @Test
    void everyActionRoundTripsThroughARealLogAndGrantsNothing() throws Exception {
        List<AuditEvent.WorkflowChanged> events = List.of(
                event(AuditEvent.WorkflowChanged.Action.TAKEOVER, "token 2 to host-b@h-0123456789abcdef"),
                event(AuditEvent.WorkflowChanged.Action.DECIDE, "step 0 EFFECT_HAPPENED"),
                event(AuditEvent.WorkflowChanged.Action.PURGE, "ended 2026-03-01T10:00:00Z records 7"));
        Path dir = tmp.resolve("audit");
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir).build())) {
            for (AuditEvent.WorkflowChanged e : events) {
                AppendResult r = log.recordWorkflowChange(e);
                assertThat(r.isCommitted()).as(r.toString()).isTrue();
            }
        }
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir).build())) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.records(0, 10)).extracting(AuditRecord::event).containsExactlyElementsOf(events);
            assertThat(log.list()).isEmpty();
        }
    }

    @Test
    void invalidValuesAreRefusedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> new AuditEvent.WorkflowChanged(
                        AuditEvent.WorkflowChanged.Action.PURGE, "not-a-uuid", RunId.of("run-1"), ""))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> event(AuditEvent.WorkflowChanged.Action.PURGE, "line\nbreak"))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> event(AuditEvent.WorkflowChanged.Action.PURGE, "x".repeat(201)))
                .isInstanceOf(InvalidValueException.class);
    }
}
