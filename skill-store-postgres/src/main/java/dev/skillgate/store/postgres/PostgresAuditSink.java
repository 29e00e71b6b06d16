package dev.skillgate.store.postgres;

import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.ExportedRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apiguardian.api.API;

/**
 * An {@link AuditSink} that appends every exported record to {@code skillgate_audit_export}: log id,
 * sequence, the chain hash before and after, the record's time, type and text, and the exporting
 * instance. A central auditor verifies every instance's contiguity there ({@link PostgresAuditTable}).
 *
 * <p>Idempotent by (log id, sequence), as the sink contract asks: a re-delivered record with the same
 * chain hash is accepted; a different record under a sequence already stored throws (the log halts:
 * someone rewrote history, or two logs share an id). The local log stays the source of truth; a crash
 * between commit and export leaves a gap here that the auditor sees (decision 0370).
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class PostgresAuditSink implements AuditSink {
    private static final Pattern INSTANCE = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    private final DataSource dataSource;
    private final String instance;

    /**
     * A sink over {@code dataSource}, naming the exporting instance {@code instance}
     * ({@code [a-z0-9][a-z0-9.-]{0,63}}).
     */
    public PostgresAuditSink(DataSource dataSource, String instance) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.instance = Objects.requireNonNull(instance, "instance");
        if (!INSTANCE.matcher(instance).matches()) {
            throw new IllegalArgumentException("an instance name is 1-64 of [a-z0-9.-]");
        }
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public void export(ExportedRecord record) throws SQLException {
        Objects.requireNonNull(record, "record");
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true); // each row commits on its own
            }
            int inserted;
            try (PreparedStatement p = c.prepareStatement("INSERT INTO skillgate_audit_export (log_id, sequence, "
                    + "previous_chain_hash, chain_hash, recorded_at, event_type, event, instance) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (log_id, sequence) DO NOTHING")) {
                p.setString(1, record.logId());
                p.setLong(2, record.sequence());
                p.setString(3, record.previousChainHash().toString());
                p.setString(4, record.record().chainHash().toString());
                p.setObject(5, record.record().recordedAt().atOffset(ZoneOffset.UTC));
                p.setString(6, record.record().event().getClass().getSimpleName());
                p.setString(7, record.record().event().toString());
                p.setString(8, instance);
                inserted = p.executeUpdate();
            }
            if (inserted == 1) {
                return;
            }
            try (PreparedStatement p =
                    c.prepareStatement("SELECT previous_chain_hash, chain_hash FROM skillgate_audit_export "
                            + "WHERE log_id = ? AND sequence = ?")) {
                p.setString(1, record.logId());
                p.setLong(2, record.sequence());
                try (ResultSet rs = p.executeQuery()) {
                    if (rs.next()
                            && rs.getString(1).equals(record.previousChainHash().toString())
                            && rs.getString(2)
                                    .equals(record.record().chainHash().toString())) {
                        return; // a re-delivery of the same record
                    }
                }
            }
            throw new SQLException(
                    "log " + record.logId() + " record " + record.sequence()
                            + " is already stored with other chain hashes",
                    "SGAU1");
        }
    }

    @Override
    public String toString() {
        return "PostgresAuditSink[" + instance + "]";
    }
}
