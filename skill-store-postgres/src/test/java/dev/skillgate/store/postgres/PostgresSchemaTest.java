package dev.skillgate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.workflow.WorkflowStoreException;
import java.sql.Connection;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresSchemaTest {
    @Test
    void migrateAppliesOnceAndTheStoresRefuseAnUnmigratedDatabase() throws Exception {
        DataSource ds = Pg.dataSource(Pg.freshDatabaseName());
        WorkflowStoreException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> new PostgresWorkflowStore(ds).list(10), WorkflowStoreException.class);
        assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_SCHEMA_UNKNOWN);
        PolicyLoad load = new PostgresPolicyStore(ds).load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);

        assertThat(PostgresSchema.migrate(ds)).isEqualTo(new PostgresSchema.Report(0, 1, List.of(1)));
        assertThat(PostgresSchema.migrate(ds)).isEqualTo(new PostgresSchema.Report(1, 1, List.of()));
        try (Connection c = ds.getConnection()) {
            assertThat(PostgresSchema.currentVersion(c)).isEqualTo(1);
        }
        assertThat(new PostgresWorkflowStore(ds).list(10)).isEmpty();
        assertThat(new PostgresPolicyStore(ds).load().status()).isEqualTo(PolicyLoad.Status.ABSENT);
    }

    @Test
    void aNewerOrChangedSchemaIsRefusedNeverGuessed() throws Exception {
        DataSource newer = Pg.migrated();
        Pg.sql(
                newer,
                "INSERT INTO skillgate_schema_version (version, script, sha256) VALUES (2, 'V2__future.sql', 'x')");
        assertThatThrownBy(() -> PostgresSchema.migrate(newer))
                .isInstanceOf(PostgresSchema.SchemaVersionException.class)
                .hasMessageContaining("version 2");
        WorkflowStoreException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> new PostgresWorkflowStore(newer).list(10), WorkflowStoreException.class);
        assertThat(e.code()).isEqualTo(ErrorCode.WORKFLOW_SCHEMA_UNKNOWN);

        DataSource changed = Pg.migrated();
        Pg.sql(changed, "UPDATE skillgate_schema_version SET sha256 = 'edited' WHERE version = 1");
        assertThatThrownBy(() -> PostgresSchema.migrate(changed))
                .isInstanceOf(PostgresSchema.SchemaVersionException.class)
                .hasMessageContaining("differs");
    }

    @Test
    void instancesMigratingAtOnceMigrateOnce() throws Exception {
        DataSource ds = Pg.dataSource(Pg.freshDatabaseName());
        List<Thread> threads = new java.util.ArrayList<>();
        java.util.concurrent.ConcurrentLinkedQueue<Object> results = new java.util.concurrent.ConcurrentLinkedQueue<>();
        for (int i = 0; i < 4; i++) {
            Thread t = new Thread(() -> {
                try {
                    results.add(
                            PostgresSchema.migrate(Pg.dataSource(dbName(ds))).applied());
                } catch (Exception ex) {
                    results.add(ex);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        assertThat(results).hasSize(4).allMatch(r -> r instanceof List);
        assertThat(results.stream().filter(r -> !((List<?>) r).isEmpty()).count())
                .isEqualTo(1);
    }

    private static String dbName(DataSource ds) {
        return ((org.postgresql.ds.PGSimpleDataSource) ds).getDatabaseName();
    }

    @Test
    void statementsSplitAtLineEndSemicolonsOnly() {
        assertThat(PostgresSchema.statements("-- c\nCREATE TABLE a (x int);\n\nCREATE INDEX i\n ON a (x);\n"))
                .containsExactly("CREATE TABLE a (x int)", "CREATE INDEX i\n ON a (x)");
        assertThatThrownBy(() -> PostgresSchema.statements("CREATE TABLE a (x int)"))
                .isInstanceOf(IllegalStateException.class);
    }
}
