package dev.skillgate.testkit;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.ExportedRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An {@link AuditSink} that keeps every record it accepts in memory, for tests: what a host's SIEM or
 * remote witness would have received, in the order received, and a check that it forms one
 * contiguous chain ({@link #chainProblems()}).
 *
 * <p>Thread-safe: every method may be called from any thread. {@link #failExports(boolean)} makes
 * it throw, standing in for a destination that is down, so a test can watch the log halt
 * ({@code AUDIT_SINK_FAILED}). Unbounded by design: it is for tests, not for production logs.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class InMemoryAuditSink implements AuditSink {
    private final String name;
    private final List<ExportedRecord> received = new ArrayList<>();
    private int refused;
    private boolean failing;

    /** A sink named {@code in-memory}. */
    public InMemoryAuditSink() {
        this("in-memory");
    }

    /** A sink with {@code name} (see {@link AuditSink#NAME}). */
    public InMemoryAuditSink(String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an audit sink name is 1-64 of [a-z0-9.-]");
        }
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Keeps {@code record}; throws {@link IOException} instead while {@link #failExports(boolean)} is
     * on (the record is then not kept).
     */
    @Override
    public synchronized void export(ExportedRecord record) throws IOException {
        Objects.requireNonNull(record, "record");
        if (failing) {
            refused++;
            throw new IOException("the in-memory sink was told to fail");
        }
        received.add(record);
    }

    /** While {@code fail} is true every export throws, as a destination that is down would. */
    public synchronized void failExports(boolean fail) {
        this.failing = fail;
    }

    /** Every record accepted, in the order received (a record delivered again after a resume appears twice). */
    public synchronized List<ExportedRecord> received() {
        return List.copyOf(received);
    }

    /** The sequence numbers accepted, in the order received. */
    public synchronized List<Long> sequences() {
        return received.stream().map(ExportedRecord::sequence).toList();
    }

    /** How many exports were refused while failing. */
    public synchronized int refusedCount() {
        return refused;
    }

    /** Forgets everything received. */
    public synchronized void clear() {
        received.clear();
        refused = 0;
    }

    /**
     * What breaks the chain of the records received, in order; empty when each record directly
     * follows the one before ({@link ExportedRecord#follows}: the same log, the next sequence number,
     * the chain hashes link). A record with another log id is accepted only as the first record of a
     * log started by an operator repair. A gap (for example after a restart, or an export lost in a
     * crash), a duplicate (a re-delivery after a resume), a reordering or a broken link is reported.
     * Says nothing about the first record's predecessor, which this sink never saw.
     */
    public List<String> chainProblems() {
        List<ExportedRecord> records = received();
        List<String> problems = new ArrayList<>();
        for (int i = 1; i < records.size(); i++) {
            ExportedRecord previous = records.get(i - 1);
            ExportedRecord r = records.get(i);
            if (r.follows(previous)) {
                continue;
            }
            if (!r.logId().equals(previous.logId())) {
                if (r.sequence() != 1 || !(r.record().event() instanceof AuditEvent.Repaired)) {
                    problems.add("record " + i + " (seq " + r.sequence() + ") belongs to another log and is not the"
                            + " repair that starts it");
                }
            } else if (r.sequence() == previous.sequence()) {
                problems.add("record " + i + " repeats seq " + r.sequence());
            } else if (r.sequence() < previous.sequence()) {
                problems.add("record " + i + " (seq " + r.sequence() + ") comes after seq " + previous.sequence());
            } else if (r.sequence() > previous.sequence() + 1) {
                problems.add("records " + (previous.sequence() + 1) + " to " + (r.sequence() - 1) + " are missing");
            } else {
                problems.add("record " + i + " (seq " + r.sequence() + ") does not link to the chain hash of seq "
                        + previous.sequence());
            }
        }
        return problems;
    }

    /**
     * Fails with an {@link AssertionError} listing {@link #chainProblems()} unless there are none.
     *
     * @return this sink
     */
    public InMemoryAuditSink assertContiguousChain() {
        List<String> problems = chainProblems();
        if (!problems.isEmpty()) {
            throw new AssertionError("the exported records do not form one contiguous chain: " + problems);
        }
        return this;
    }

    @Override
    public String toString() {
        return "InMemoryAuditSink[" + name + ", " + sequences() + "]";
    }
}
