package dev.skillgate.audit;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sink for the audit tests: records what it accepted and on which thread, and can be told to
 * throw or to hang (the real parts a sink talks to — a SIEM, a network — are the host's).
 */
final class RecordingSink implements AuditSink {
    private final String name;
    final List<ExportedRecord> accepted = new CopyOnWriteArrayList<>();
    final List<Long> attempts = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();
    final AtomicInteger interrupted = new AtomicInteger();
    /** Calls from this attempt number on (0-based) throw, until reset to -1. */
    volatile int failFrom = -1;
    /** Calls from this attempt number on block until {@link #release} counts down. */
    volatile int hangFrom = -1;

    final CountDownLatch release = new CountDownLatch(1);

    RecordingSink(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void export(ExportedRecord record) throws Exception {
        int attempt = attempts.size();
        attempts.add(record.sequence());
        threads.add(Thread.currentThread().getName());
        if (failFrom >= 0 && attempt >= failFrom) {
            throw new IOException("the SIEM is unreachable");
        }
        if (hangFrom >= 0 && attempt >= hangFrom) {
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
        }
        accepted.add(record);
    }

    List<Long> acceptedSequences() {
        return accepted.stream().map(ExportedRecord::sequence).toList();
    }
}
