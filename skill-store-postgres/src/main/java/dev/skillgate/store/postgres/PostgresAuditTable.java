package dev.skillgate.store.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.apiguardian.api.API;

/**
 * The central auditor's view of {@code skillgate_audit_export}: for every exported log (one per
 * instance and repair), whether what the table holds is one contiguous, linked chain.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class PostgresAuditTable {
    private PostgresAuditTable() {}

    /**
     * One log's export as the table holds it.
     *
     * @param logId the log id
     * @param instance the instance that exported it (the first record's)
     * @param first the first sequence held
     * @param last the last sequence held
     * @param count how many records are held
     * @param firstBreak the first sequence that does not follow the one before (a gap or a chain
     *     hash that does not link), if any
     */
    public record LogExport(
            String logId, String instance, long first, long last, long count, Optional<Long> firstBreak) {
        public LogExport {
            Objects.requireNonNull(logId, "logId");
            Objects.requireNonNull(instance, "instance");
            Objects.requireNonNull(firstBreak, "firstBreak");
        }

        /** Whether the table holds records {@code first..last} with no gap and every chain hash linking. */
        public boolean contiguous() {
            return firstBreak.isEmpty() && count == last - first + 1;
        }
    }

    /** Verifies every log in the table (reads it once, in (log, sequence) order). */
    public static List<LogExport> verify(DataSource dataSource) throws SQLException {
        List<LogExport> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement p =
                        c.prepareStatement("SELECT log_id, sequence, previous_chain_hash, chain_hash, instance "
                                + "FROM skillgate_audit_export ORDER BY log_id, sequence");
                ResultSet rs = p.executeQuery()) {
            String log = null;
            String instance = null;
            long first = 0;
            long last = 0;
            long count = 0;
            String chain = null;
            Long firstBreak = null;
            while (rs.next()) {
                String id = rs.getString(1);
                long seq = rs.getLong(2);
                if (!id.equals(log)) {
                    if (log != null) {
                        out.add(new LogExport(log, instance, first, last, count, Optional.ofNullable(firstBreak)));
                    }
                    log = id;
                    instance = rs.getString(5);
                    first = seq;
                    count = 0;
                    firstBreak = null;
                } else if (firstBreak == null
                        && (seq != last + 1 || !rs.getString(3).equals(chain))) {
                    firstBreak = seq;
                }
                last = seq;
                chain = rs.getString(4);
                count++;
            }
            if (log != null) {
                out.add(new LogExport(log, instance, first, last, count, Optional.ofNullable(firstBreak)));
            }
        }
        return out;
    }
}
