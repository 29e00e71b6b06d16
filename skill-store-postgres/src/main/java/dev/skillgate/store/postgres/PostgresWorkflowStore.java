package dev.skillgate.store.postgres;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.workflow.InstanceId;
import dev.skillgate.workflow.OwnerIdentity;
import dev.skillgate.workflow.ProcessIdentity;
import dev.skillgate.workflow.SealedRecord;
import dev.skillgate.workflow.StoredWorkflow;
import dev.skillgate.workflow.TakeoverCondition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowStore;
import dev.skillgate.workflow.WorkflowStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.apiguardian.api.API;

/**
 * The workflow store in PostgreSQL (tables {@code skillgate_workflow} and
 * {@code skillgate_workflow_record}, schema {@link PostgresSchema#VERSION}).
 *
 * <p>Every mutation is one transaction that first locks the workflow's row ({@code SELECT … FOR
 * UPDATE}), checks the fencing token (and for a lease takeover the lease against the database's own
 * {@code clock_timestamp()}, so the instances' clocks do not matter), then writes and commits: two
 * instances can never both advance, renew or take over the same workflow. An append is acknowledged
 * only after its commit returned (durability is the server's: {@code fsync} and
 * {@code synchronous_commit}, as the operator configured them). It stores sealed bytes only and never
 * sees a key. Connections come from the host's {@link DataSource} (pool it); each operation takes one
 * and returns it.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class PostgresWorkflowStore implements WorkflowStore {
    private final DataSource dataSource;
    private volatile boolean schemaChecked;

    /** A store over {@code dataSource}; run {@link PostgresSchema#migrate} first. */
    public PostgresWorkflowStore(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    private interface Tx<T> {
        T run(Connection c) throws SQLException, WorkflowStoreException;
    }

    private <T> T tx(Tx<T> body) throws WorkflowStoreException {
        try (Connection c = dataSource.getConnection()) {
            if (!schemaChecked) {
                PostgresSchema.requireCurrent(c);
                schemaChecked = true;
            }
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = body.run(c);
                c.commit();
                return result;
            } catch (SQLException | WorkflowStoreException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto); // hand a pooled connection back as it came
            }
        } catch (PostgresSchema.SchemaVersionException e) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_SCHEMA_UNKNOWN, e.getMessage(), e);
        } catch (SQLException e) {
            throw new WorkflowStoreException(
                    ErrorCode.WORKFLOW_STORE_IO,
                    "the database refused or failed (SQLState " + e.getSQLState() + ")",
                    e);
        }
    }

    private static final String HEAD =
            "SELECT id, owner_instance, owner_host, owner_pid, owner_start_token, fencing_token, "
                    + "lease_expires_at, record_count, created_at, ended_at, clock_timestamp() FROM skillgate_workflow ";

    private record Row(StoredWorkflow head, Instant dbNow) {}

    private static Optional<Row> lockHead(Connection c, WorkflowId id, boolean forUpdate)
            throws SQLException, WorkflowStoreException {
        try (PreparedStatement p = c.prepareStatement(HEAD + "WHERE id = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
            p.setObject(1, id.value());
            try (ResultSet rs = p.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Row(head(rs), instant(rs, 11)));
            }
        }
    }

    private static StoredWorkflow head(ResultSet rs) throws SQLException, WorkflowStoreException {
        try {
            long pid = rs.getLong(4);
            boolean hasPid = !rs.wasNull();
            String token = rs.getString(5);
            Optional<ProcessIdentity> process =
                    hasPid && token != null ? Optional.of(new ProcessIdentity(pid, token)) : Optional.empty();
            OwnerIdentity owner = new OwnerIdentity(InstanceId.of(rs.getString(2)), rs.getString(3), process);
            OffsetDateTime ended = rs.getObject(10, OffsetDateTime.class);
            return new StoredWorkflow(
                    new WorkflowId(rs.getObject(1, UUID.class)),
                    owner,
                    rs.getLong(6),
                    instant(rs, 7),
                    rs.getInt(8),
                    instant(rs, 9),
                    Optional.ofNullable(ended).map(OffsetDateTime::toInstant));
        } catch (IllegalArgumentException e) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_STORE_CORRUPT, "a workflow row holds an invalid value");
        }
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    private static WorkflowStoreException notFound(WorkflowId id) {
        return new WorkflowStoreException(ErrorCode.WORKFLOW_NOT_FOUND, "no workflow " + id);
    }

    private static WorkflowStoreException fenced(WorkflowId id, long presented, long current) {
        return new WorkflowStoreException(
                ErrorCode.WORKFLOW_FENCED,
                "workflow " + id + ": fencing token " + presented + " is stale (current " + current + ")");
    }

    private static void setOwner(PreparedStatement p, int from, OwnerIdentity owner) throws SQLException {
        p.setString(from, owner.instance().value());
        p.setString(from + 1, owner.hostId());
        if (owner.process().isPresent()) {
            p.setLong(from + 2, owner.process().get().pid());
            p.setString(from + 3, owner.process().get().startToken());
        } else {
            p.setNull(from + 2, Types.BIGINT);
            p.setNull(from + 3, Types.VARCHAR);
        }
    }

    private static void insertRecord(Connection c, SealedRecord r) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("INSERT INTO skillgate_workflow_record "
                + "(workflow_id, sequence, schema_version, fencing_token, sealed) VALUES (?, ?, ?, ?, ?)")) {
            p.setObject(1, r.workflow().value());
            p.setInt(2, r.sequence());
            p.setInt(3, r.schemaVersion());
            p.setLong(4, r.fencingToken());
            p.setBytes(5, r.sealed());
            p.executeUpdate();
        }
    }

    @Override
    public StoredWorkflow create(OwnerIdentity owner, Duration lease, SealedRecord definition)
            throws WorkflowStoreException {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(lease, "lease");
        if (definition.sequence() != 0 || definition.fencingToken() != 1) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "a definition is record 0 under token 1");
        }
        WorkflowId id = definition.workflow();
        return tx(c -> {
            try (PreparedStatement p =
                    c.prepareStatement("INSERT INTO skillgate_workflow (id, owner_instance, owner_host, "
                            + "owner_pid, owner_start_token, fencing_token, lease_expires_at, record_count, created_at) "
                            + "VALUES (?, ?, ?, ?, ?, 1, clock_timestamp() + ? * interval '1 millisecond', 1, clock_timestamp()) "
                            + "ON CONFLICT (id) DO NOTHING")) {
                p.setObject(1, id.value());
                setOwner(p, 2, owner);
                p.setLong(6, lease.toMillis());
                if (p.executeUpdate() != 1) {
                    throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "workflow " + id + " exists");
                }
            }
            insertRecord(c, definition);
            return lockHead(c, id, false).orElseThrow(() -> notFound(id)).head();
        });
    }

    @Override
    public StoredWorkflow append(WorkflowId id, long fencingToken, SealedRecord record, boolean ends)
            throws WorkflowStoreException {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(record, "record");
        if (!record.workflow().equals(id) || record.fencingToken() != fencingToken) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "the record names another workflow or token");
        }
        return tx(c -> {
            StoredWorkflow h =
                    lockHead(c, id, true).orElseThrow(() -> notFound(id)).head();
            if (h.fencingToken() != fencingToken) {
                throw fenced(id, fencingToken, h.fencingToken());
            }
            if (h.ended()) {
                throw new WorkflowStoreException(ErrorCode.WORKFLOW_TERMINAL, "workflow " + id + " has ended");
            }
            if (record.sequence() != h.records()) {
                throw new WorkflowStoreException(
                        ErrorCode.WORKFLOW_INVALID,
                        "record " + record.sequence() + " is not the next (" + h.records() + ")");
            }
            insertRecord(c, record);
            try (PreparedStatement p =
                    c.prepareStatement("UPDATE skillgate_workflow SET record_count = record_count + 1, "
                            + "ended_at = CASE WHEN ? THEN clock_timestamp() ELSE ended_at END WHERE id = ?")) {
                p.setBoolean(1, ends);
                p.setObject(2, id.value());
                p.executeUpdate();
            }
            return lockHead(c, id, false).orElseThrow(() -> notFound(id)).head();
        });
    }

    @Override
    public StoredWorkflow renew(WorkflowId id, long fencingToken, Duration lease) throws WorkflowStoreException {
        return tx(c -> {
            StoredWorkflow h =
                    lockHead(c, id, true).orElseThrow(() -> notFound(id)).head();
            if (h.fencingToken() != fencingToken) {
                throw fenced(id, fencingToken, h.fencingToken());
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE skillgate_workflow SET lease_expires_at = "
                    + "clock_timestamp() + ? * interval '1 millisecond' WHERE id = ?")) {
                p.setLong(1, lease.toMillis());
                p.setObject(2, id.value());
                p.executeUpdate();
            }
            return lockHead(c, id, false).orElseThrow(() -> notFound(id)).head();
        });
    }

    @Override
    public StoredWorkflow takeOver(
            WorkflowId id, long expectedToken, OwnerIdentity newOwner, Duration lease, TakeoverCondition condition)
            throws WorkflowStoreException {
        Objects.requireNonNull(newOwner, "newOwner");
        Objects.requireNonNull(condition, "condition");
        return tx(c -> {
            Row row = lockHead(c, id, true).orElseThrow(() -> notFound(id));
            StoredWorkflow h = row.head();
            if (h.fencingToken() != expectedToken) {
                throw fenced(id, expectedToken, h.fencingToken());
            }
            if (condition == TakeoverCondition.LEASE_EXPIRED
                    && !h.leaseExpiresAt().isBefore(row.dbNow())) {
                throw new WorkflowStoreException(
                        ErrorCode.WORKFLOW_OWNER_ALIVE,
                        "the owner's lease runs until " + h.leaseExpiresAt() + " (database clock)");
            }
            try (PreparedStatement p =
                    c.prepareStatement("UPDATE skillgate_workflow SET owner_instance = ?, owner_host = ?, "
                            + "owner_pid = ?, owner_start_token = ?, fencing_token = fencing_token + 1, "
                            + "lease_expires_at = clock_timestamp() + ? * interval '1 millisecond' WHERE id = ?")) {
                setOwner(p, 1, newOwner);
                p.setLong(5, lease.toMillis());
                p.setObject(6, id.value());
                p.executeUpdate();
            }
            return lockHead(c, id, false).orElseThrow(() -> notFound(id)).head();
        });
    }

    @Override
    public Optional<StoredWorkflow> find(WorkflowId id) throws WorkflowStoreException {
        return tx(c -> lockHead(c, id, false).map(Row::head));
    }

    @Override
    public List<SealedRecord> records(WorkflowId id) throws WorkflowStoreException {
        return tx(c -> {
            StoredWorkflow h =
                    lockHead(c, id, false).orElseThrow(() -> notFound(id)).head();
            List<SealedRecord> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement("SELECT sequence, schema_version, fencing_token, sealed "
                    + "FROM skillgate_workflow_record WHERE workflow_id = ? AND sequence < ? ORDER BY sequence")) {
                p.setObject(1, id.value());
                p.setInt(2, h.records());
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        try {
                            out.add(new SealedRecord(id, rs.getInt(1), rs.getInt(2), rs.getLong(3), rs.getBytes(4)));
                        } catch (IllegalArgumentException e) {
                            throw new WorkflowStoreException(
                                    ErrorCode.WORKFLOW_STORE_CORRUPT,
                                    "record " + rs.getInt(1) + " holds an invalid value");
                        }
                    }
                }
            }
            if (out.size() != h.records()) {
                throw new WorkflowStoreException(
                        ErrorCode.WORKFLOW_STORE_CORRUPT,
                        "workflow " + id + " lacks records (" + out.size() + " of " + h.records() + ")");
            }
            return out;
        });
    }

    @Override
    public List<StoredWorkflow> list(int limit) throws WorkflowStoreException {
        return tx(c -> {
            List<StoredWorkflow> out = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement(HEAD + "ORDER BY created_at LIMIT ?")) {
                p.setInt(1, Math.max(0, limit));
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        out.add(head(rs));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public List<StoredWorkflow> purgeEnded(Duration retention) throws WorkflowStoreException {
        Objects.requireNonNull(retention, "retention");
        return tx(c -> {
            List<StoredWorkflow> removed = new ArrayList<>();
            try (PreparedStatement p = c.prepareStatement(HEAD + "WHERE ended_at IS NOT NULL AND ended_at < "
                    + "clock_timestamp() - ? * interval '1 millisecond' FOR UPDATE")) {
                p.setLong(1, retention.toMillis());
                try (ResultSet rs = p.executeQuery()) {
                    while (rs.next()) {
                        removed.add(head(rs));
                    }
                }
            }
            try (PreparedStatement p =
                    c.prepareStatement("DELETE FROM skillgate_workflow WHERE id = ? AND ended_at IS NOT NULL")) {
                for (StoredWorkflow w : removed) {
                    p.setObject(1, w.id().value());
                    p.addBatch();
                }
                p.executeBatch();
            }
            return removed;
        });
    }

    @Override
    public Instant now() throws WorkflowStoreException {
        return tx(c -> {
            try (PreparedStatement p = c.prepareStatement("SELECT clock_timestamp()");
                    ResultSet rs = p.executeQuery()) {
                rs.next();
                return instant(rs, 1);
            }
        });
    }

    @Override
    public void close() {
        // the host owns the DataSource
    }

    @Override
    public String toString() {
        return "PostgresWorkflowStore";
    }
}
