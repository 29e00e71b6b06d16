package dev.skillgate.store.postgres;

import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.testkit.contract.AbstractPolicyStoreContractTest;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/** The PostgreSQL policy store against the policy store TCK, on a real server. */
class PostgresPolicyStoreContractTest extends AbstractPolicyStoreContractTest {
    private final Map<Path, String> databases = new HashMap<>();

    private DataSource dataSource(Path location) throws Exception {
        String db = databases.get(location);
        if (db == null) {
            db = Pg.freshDatabaseName();
            PostgresSchema.migrate(Pg.dataSource(db));
            databases.put(location, db);
        }
        return Pg.dataSource(db);
    }

    @Override
    protected PolicyStore openStore(Path location) throws Exception {
        return new PostgresPolicyStore(dataSource(location));
    }

    @Override
    protected void corruptStoredPolicy(Path location) throws Exception {
        // A foreign writer: bytes that are not a policy document.
        Pg.sql(dataSource(location), "UPDATE skillgate_policy SET document = convert_to('{\"format\":\"x\"', 'UTF8')");
    }

    @Override
    protected Optional<AutoCloseable> failReplaces(Path location) throws Exception {
        DataSource ds = dataSource(location);
        // The server refuses every later write of the row, after the row was locked and read.
        Pg.sql(ds, "ALTER TABLE skillgate_policy ADD CONSTRAINT tck_fault CHECK (version < 0) NOT VALID");
        return Optional.of(() -> Pg.sql(ds, "ALTER TABLE skillgate_policy DROP CONSTRAINT tck_fault"));
    }
}
