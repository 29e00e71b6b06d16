package dev.skillgate.store.postgres;

import dev.skillgate.testkit.contract.AbstractWorkflowStoreContractTest;
import dev.skillgate.workflow.WorkflowStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The PostgreSQL workflow store against the workflow store TCK, on a real server. */
class PostgresWorkflowStoreContractTest extends AbstractWorkflowStoreContractTest {
    private final Map<Path, String> databases = new HashMap<>();

    @Override
    protected WorkflowStore openStore(Path location) throws Exception {
        String db = databases.get(location);
        if (db == null) {
            db = Pg.freshDatabaseName();
            PostgresSchema.migrate(Pg.dataSource(db));
            databases.put(location, db);
        }
        return new PostgresWorkflowStore(Pg.dataSource(db));
    }
}
