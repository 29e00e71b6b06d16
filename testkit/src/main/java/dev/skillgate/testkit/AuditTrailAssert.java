package dev.skillgate.testkit;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.RunId;
import java.util.List;
import org.apiguardian.api.API;
import org.assertj.core.api.AbstractAssert;

/** AssertJ assertions for the events of an audit log, in order. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class AuditTrailAssert extends AbstractAssert<AuditTrailAssert, List<AuditEvent>> {

    AuditTrailAssert(List<AuditEvent> actual) {
        super(List.copyOf(actual), AuditTrailAssert.class);
    }

    /** No event at all. */
    public AuditTrailAssert isEmpty() {
        isNotNull();
        if (!actual.isEmpty()) {
            failWithMessage("Expected no audit events but got %s", actual);
        }
        return this;
    }

    /** A consumed grant was recorded for {@code run}. */
    public AuditTrailAssert hasConsumptionFor(RunId run) {
        isNotNull();
        if (actual.stream()
                .noneMatch(e -> e instanceof AuditEvent.Consumed c && c.run().equals(run))) {
            failWithMessage("Expected a consumption for run %s but got %s", run, actual);
        }
        return this;
    }

    /** No consumed grant was recorded. */
    public AuditTrailAssert hasNoConsumption() {
        isNotNull();
        if (actual.stream().anyMatch(e -> e instanceof AuditEvent.Consumed)) {
            failWithMessage("Expected no consumption but got %s", actual);
        }
        return this;
    }

    /** {@code scope} was approved. */
    public AuditTrailAssert hasApprovalOf(TrustScope scope) {
        isNotNull();
        if (!actual.contains(new AuditEvent.Approved(scope))) {
            failWithMessage("Expected an approval of %s but got %s", scope, actual);
        }
        return this;
    }

    /** {@code scope} was revoked. */
    public AuditTrailAssert hasRevocationOf(TrustScope scope) {
        isNotNull();
        if (!actual.contains(new AuditEvent.Revoked(scope))) {
            failWithMessage("Expected a revocation of %s but got %s", scope, actual);
        }
        return this;
    }

    /** The events have exactly these types, in order. */
    @SafeVarargs
    public final AuditTrailAssert hasEventTypes(Class<? extends AuditEvent>... types) {
        isNotNull();
        List<Class<?>> got = actual.stream().<Class<?>>map(Object::getClass).toList();
        if (!got.equals(List.of(types))) {
            failWithMessage("Expected event types %s but got %s", List.of(types), actual);
        }
        return this;
    }
}
