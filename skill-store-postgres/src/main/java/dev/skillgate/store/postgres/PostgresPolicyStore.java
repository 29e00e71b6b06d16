package dev.skillgate.store.postgres;

import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.spi.PolicyDocuments;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apiguardian.api.API;

/**
 * The execution policy in PostgreSQL, shared by every instance on the database: one row of
 * {@code skillgate_policy} per policy name, holding the same strict JSON the file store keeps
 * ({@link PolicyDocuments}).
 *
 * <p>{@link #load} reads the committed row every time (the engine re-reads before every launch), so a
 * change saved on one instance applies to the next launch on every other. {@link #update} — which
 * {@code PolicyAdmin.save} mints receipts in — runs in one transaction holding the row's lock from the
 * read to the commit ({@code SELECT … FOR UPDATE} on a row created empty if missing): two instances
 * saving the same new scope at once mint one receipt; the second waits, reads the first's and keeps
 * it. A row that does not decode is {@code UNUSABLE} ({@code POLICY_CORRUPT}, the policy is blocked); a
 * database that cannot be reached is {@code UNUSABLE} with {@code POLICY_IO}. Never throws from
 * {@code load}.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class PostgresPolicyStore implements PolicyStore {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    private final DataSource dataSource;
    private final String name;

    /** The policy called {@code default}. */
    public PostgresPolicyStore(DataSource dataSource) {
        this(dataSource, "default");
    }

    /** The policy called {@code name} ({@code [a-z0-9][a-z0-9.-]{0,63}}), for several deployments on one database. */
    public PostgresPolicyStore(DataSource dataSource, String name) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.name = Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a policy name is 1-64 of [a-z0-9.-]");
        }
    }

    @Override
    public PolicyLoad load() {
        try (Connection c = dataSource.getConnection()) {
            PostgresSchema.requireCurrent(c);
            try (PreparedStatement p =
                    c.prepareStatement("SELECT document, version FROM skillgate_policy WHERE name = ?")) {
                p.setString(1, name);
                try (ResultSet rs = p.executeQuery()) {
                    return rs.next() ? decode(rs.getBytes(1), rs.getLong(2)) : PolicyLoad.absent();
                }
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback(); // a pool that hands out non-autocommit connections: end the read
                }
            }
        } catch (PostgresSchema.SchemaVersionException e) {
            return PolicyLoad.unusable(
                    ErrorCode.POLICY_IO, "the policy database schema is not usable: " + e.getMessage());
        } catch (SQLException | RuntimeException e) {
            return PolicyLoad.unusable(
                    ErrorCode.POLICY_IO,
                    "the policy database cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    private static PolicyLoad decode(byte[] document, long version) {
        if (version == 0) {
            return PolicyLoad.absent(); // the empty row an update locks before the first save
        }
        if (document == null) {
            return PolicyLoad.unusable(ErrorCode.POLICY_CORRUPT, "the stored policy is empty");
        }
        return PolicyDocuments.decode(document);
    }

    @Override
    public void replace(PolicySettings settings) throws IOException {
        Objects.requireNonNull(settings, "settings");
        update(current -> Optional.of(settings));
    }

    @Override
    public void update(Function<PolicyLoad, Optional<PolicySettings>> change) throws IOException {
        Objects.requireNonNull(change, "change");
        try (Connection c = dataSource.getConnection()) {
            PostgresSchema.requireCurrent(c);
            boolean auto = c.getAutoCommit();
            if (!auto) {
                c.rollback();
            }
            c.setAutoCommit(false);
            try {
                try (PreparedStatement p =
                        c.prepareStatement("INSERT INTO skillgate_policy (name, document, version, updated_at) "
                                + "VALUES (?, ''::bytea, 0, clock_timestamp()) ON CONFLICT (name) DO NOTHING")) {
                    p.setString(1, name);
                    p.executeUpdate();
                }
                PolicyLoad current;
                try (PreparedStatement p = c.prepareStatement(
                        "SELECT document, version FROM skillgate_policy WHERE name = ? FOR UPDATE")) {
                    p.setString(1, name);
                    try (ResultSet rs = p.executeQuery()) {
                        rs.next();
                        current = decode(rs.getBytes(1), rs.getLong(2));
                    }
                }
                Optional<PolicySettings> next = change.apply(current);
                if (next.isPresent()) {
                    try (PreparedStatement p = c.prepareStatement("UPDATE skillgate_policy SET document = ?, "
                            + "version = version + 1, updated_at = clock_timestamp() WHERE name = ?")) {
                        p.setBytes(1, PolicyDocuments.encode(next.get()));
                        p.setString(2, name);
                        p.executeUpdate();
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new IOException("the policy could not be saved (SQLState " + e.getSQLState() + ")", e);
        }
    }

    @Override
    public String toString() {
        return "PostgresPolicyStore[" + name + "]";
    }
}
