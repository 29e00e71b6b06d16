package dev.skillgate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.testkit.AbstractAuditSinkContractTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The PostgreSQL audit sink against the sink TCK, on a real server. What reached the destination is
 * read back from the table (order, sequence, both chain hashes, the event text) and matched to what
 * the log handed the sink.
 */
class PostgresAuditSinkContractTest extends AbstractAuditSinkContractTest {
    private final Map<AuditSink, DataSource> databases = new ConcurrentHashMap<>();
    private final Map<String, ExportedRecord> handed = new ConcurrentHashMap<>();

    @Override
    protected AuditSink createSink() throws Exception {
        DataSource ds = Pg.migrated();
        PostgresAuditSink real = new PostgresAuditSink(ds, "tck");
        AuditSink sink = new AuditSink() {
            @Override
            public String name() {
                return real.name();
            }

            @Override
            public void export(ExportedRecord record) throws Exception {
                real.export(record);
                handed.put(record.logId() + "/" + record.sequence(), record);
            }
        };
        databases.put(sink, ds);
        return sink;
    }

    @Override
    protected Optional<List<ExportedRecord>> exported(AuditSink sink) throws Exception {
        List<ExportedRecord> out = new ArrayList<>();
        try (Connection c = databases.get(sink).getConnection();
                PreparedStatement p =
                        c.prepareStatement("SELECT log_id, sequence, previous_chain_hash, chain_hash, event "
                                + "FROM skillgate_audit_export ORDER BY log_id, sequence");
                ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                ExportedRecord r = handed.get(rs.getString(1) + "/" + rs.getLong(2));
                assertThat(r).as("a row the sink was handed").isNotNull();
                assertThat(rs.getString(3)).isEqualTo(r.previousChainHash().toString());
                assertThat(rs.getString(4)).isEqualTo(r.record().chainHash().toString());
                assertThat(rs.getString(5)).isEqualTo(r.record().event().toString());
                out.add(r);
            }
        }
        return Optional.of(out);
    }
}
