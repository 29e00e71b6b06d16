package dev.skillgate.store.postgres;

import dev.skillgate.testkit.postgres.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Fresh databases on the JVM's real test server. */
final class Pg {
    private Pg() {}

    /** A new, empty database's name. */
    static String freshDatabaseName() throws SQLException {
        String name = "t_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(TestPostgres.shared().jdbcUrl("postgres"));
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return name;
    }

    /** A data source for {@code database}. */
    static DataSource dataSource(String database) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(TestPostgres.shared().jdbcUrl(database));
        return ds;
    }

    /** A new database, migrated. */
    static DataSource migrated() throws SQLException {
        DataSource ds = dataSource(freshDatabaseName());
        PostgresSchema.migrate(ds);
        return ds;
    }

    static void sql(DataSource ds, String statement) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
