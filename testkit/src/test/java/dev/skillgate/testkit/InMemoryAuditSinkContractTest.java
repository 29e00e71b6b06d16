package dev.skillgate.testkit;

import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.ExportedRecord;
import java.util.List;
import java.util.Optional;

/** The testkit's own sink meets the contract it ships. */
// snippet:begin audit-sink-contract (docs/testkit.md)
class InMemoryAuditSinkContractTest extends AbstractAuditSinkContractTest {
    @Override
    protected AuditSink createSink() {
        return new InMemoryAuditSink();
    }

    @Override
    protected Optional<List<ExportedRecord>> exported(AuditSink sink) {
        return Optional.of(((InMemoryAuditSink) sink).received());
    }
}
// snippet:end audit-sink-contract
