package dev.skillgate.engine;

import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.ExportedRecord;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * An audit sink for the engine tests, also declared as a {@code ServiceLoader} provider
 * ({@code META-INF/services}). Records what it accepted; can be told to throw or hang, standing in
 * for a host's SIEM that is down. Every instance the service loader creates is listed in
 * {@link #CREATED}.
 */
public class ProbeAuditSink implements AuditSink {
    /** Instances created through the public constructor (the service loader uses it). */
    static final List<ProbeAuditSink> CREATED = new CopyOnWriteArrayList<>();

    private final String name;
    final List<ExportedRecord> accepted = new CopyOnWriteArrayList<>();
    final List<Long> attempts = new CopyOnWriteArrayList<>();
    volatile int failFrom = -1;
    volatile int hangFrom = -1;
    final CountDownLatch release = new CountDownLatch(1);

    /** The provider constructor. */
    public ProbeAuditSink() {
        this("engine-probe");
        CREATED.add(this);
    }

    ProbeAuditSink(String name) {
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
        if (failFrom >= 0 && attempt >= failFrom) {
            throw new IOException("the SIEM is down");
        }
        if (hangFrom >= 0 && attempt >= hangFrom) {
            release.await();
        }
        accepted.add(record);
    }

    List<Long> acceptedSequences() {
        return accepted.stream().map(ExportedRecord::sequence).toList();
    }

    /** One of two providers with the same name. */
    public static final class TwinA extends ProbeAuditSink {
        public TwinA() {
            super("engine-twin");
        }
    }

    /** The other provider with that name. */
    public static final class TwinB extends ProbeAuditSink {
        public TwinB() {
            super("engine-twin");
        }
    }
}
