package dev.skillgate.store.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.apiguardian.api.API;

/**
 * The stores' database schema and its versioned migrations, shipped in this jar
 * ({@code dev/skillgate/store/postgres/migrations/V<n>__<name>.sql}).
 *
 * <p>{@link #migrate} is the documented call a host makes once at start-up (or from its deployment
 * tooling) before it opens any store: in one transaction, under a transaction-scoped advisory lock
 * (so instances starting together migrate once), it creates {@code skillgate_schema_version} if
 * needed, checks every applied migration against the jar (same version, same SHA-256 of the script),
 * and applies the missing ones in order. A database that has a version this jar does not know, or an
 * applied script that differs, is refused with {@link SchemaVersionException}: never guessed, never
 * downgraded. The stores check {@link #VERSION} before first use.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class PostgresSchema {
    /** The schema version this jar writes and reads. */
    public static final int VERSION = 1;

    /** Advisory lock key: "skillgate" schema migrations. */
    private static final long LOCK_KEY = 0x736b696c6c676174L;

    private static final Map<Integer, String> MIGRATIONS = new LinkedHashMap<>();

    static {
        MIGRATIONS.put(1, "V1__stores.sql");
    }

    private PostgresSchema() {}

    /** A database schema this jar refuses (newer, unknown or changed migrations). */
    public static final class SchemaVersionException extends SQLException {
        private static final long serialVersionUID = 1L;

        SchemaVersionException(String message) {
            super(message, "SGSV1");
        }
    }

    /**
     * What {@link #migrate} did.
     *
     * @param from the version before (0 for an empty database)
     * @param to the version after ({@link #VERSION})
     * @param applied the versions applied now, in order
     */
    public record Report(int from, int to, List<Integer> applied) {
        public Report {
            applied = List.copyOf(applied);
        }
    }

    /** Brings the database to {@link #VERSION}; see the class description. */
    public static Report migrate(DataSource dataSource) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
                    lock.setLong(1, LOCK_KEY);
                    lock.execute();
                }
                try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE IF NOT EXISTS skillgate_schema_version ("
                            + "version integer PRIMARY KEY, script text NOT NULL, sha256 text NOT NULL, "
                            + "applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
                }
                Map<Integer, String> applied = new LinkedHashMap<>();
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery(
                                "SELECT version, sha256 FROM skillgate_schema_version ORDER BY version")) {
                    while (rs.next()) {
                        applied.put(rs.getInt(1), rs.getString(2));
                    }
                }
                int from = 0;
                for (Map.Entry<Integer, String> e : applied.entrySet()) {
                    String script = MIGRATIONS.get(e.getKey());
                    if (script == null) {
                        throw new SchemaVersionException("the database has schema version " + e.getKey()
                                + ", which this build (version " + VERSION + ") does not know");
                    }
                    if (!sha256(read(script)).equals(e.getValue())) {
                        throw new SchemaVersionException("applied migration " + script + " differs from this build's");
                    }
                    from = Math.max(from, e.getKey());
                }
                List<Integer> done = new ArrayList<>();
                for (Map.Entry<Integer, String> m : MIGRATIONS.entrySet()) {
                    if (applied.containsKey(m.getKey())) {
                        continue;
                    }
                    String sql = read(m.getValue());
                    for (String statement : statements(sql)) {
                        try (Statement s = c.createStatement()) {
                            s.execute(statement);
                        }
                    }
                    try (PreparedStatement p = c.prepareStatement(
                            "INSERT INTO skillgate_schema_version (version, script, sha256) VALUES (?, ?, ?)")) {
                        p.setInt(1, m.getKey());
                        p.setString(2, m.getValue());
                        p.setString(3, sha256(sql));
                        p.executeUpdate();
                    }
                    done.add(m.getKey());
                }
                c.commit();
                return new Report(from, VERSION, done);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        }
    }

    /** The database's schema version (0 when nothing was migrated). */
    public static int currentVersion(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT to_regclass('skillgate_schema_version') IS NOT NULL")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return 0;
            }
        }
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM skillgate_schema_version")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Throws unless the database is at exactly {@link #VERSION}. */
    static void requireCurrent(Connection c) throws SQLException {
        int v = currentVersion(c);
        if (v != VERSION) {
            throw new SchemaVersionException("the database schema is version " + v + ", this build needs " + VERSION
                    + (v < VERSION ? " (run PostgresSchema.migrate)" : ""));
        }
    }

    /** Splits a script at semicolons that end a line; comment lines are dropped. */
    static List<String> statements(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (line.strip().startsWith("--") || line.isBlank()) {
                continue;
            }
            current.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                String s = current.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("a migration ends without a semicolon");
        }
        return out;
    }

    private static String read(String script) {
        try (InputStream in = PostgresSchema.class.getResourceAsStream("migrations/" + script)) {
            if (in == null) {
                throw new IllegalStateException("migration " + script + " is missing from the jar");
            }
            return new String(in.readNBytes(1024 * 1024), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("migration " + script + " cannot be read", e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                            .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
