package dev.skillgate.testkit;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.model.ExecutionEnvelope;
import java.util.List;
import org.apiguardian.api.API;

/** Entry points of the testkit's AssertJ assertions. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillgateAssertions {
    private SkillgateAssertions() {}

    /** Assertions on an execution envelope. */
    public static EnvelopeAssert assertThat(ExecutionEnvelope envelope) {
        return new EnvelopeAssert(envelope);
    }

    /** Assertions on an inspection report. */
    public static InspectionAssert assertThat(Inspection inspection) {
        return new InspectionAssert(inspection);
    }

    /** Assertions on audit events (e.g. {@link SkillGateExtension#auditEvents()}). */
    public static AuditTrailAssert assertThatAudit(List<AuditEvent> events) {
        return new AuditTrailAssert(events);
    }
}
