package dev.skillgate.benchmarks.stores;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.store.postgres.PostgresAuditSink;
import dev.skillgate.store.postgres.PostgresSchema;
import dev.skillgate.store.postgres.PostgresWorkflowStore;
import dev.skillgate.testkit.postgres.TestPostgres;
import dev.skillgate.workflow.KeyProvider;
import dev.skillgate.workflow.WorkflowDefinition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import dev.skillgate.workflow.WorkflowStore;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The stores harness ({@code benchmarks/bench stores [rounds]}): per round, interleaved so that
 * target and baseline see the same load,
 *
 * <ul>
 *   <li>one workflow step record appended through {@link WorkflowJournal} on the embedded file store
 *       (seal with a fresh AES-256-GCM data key, CRC frame, fsync) — beside a bare append of the same
 *       number of bytes with {@code force(true)} in the same directory;
 *   <li>the same on the PostgreSQL store (row lock, fencing check, INSERT, commit) — beside a bare
 *       autocommit {@code INSERT} of the same bytes into a table of the same database;
 *   <li>the PostgreSQL audit sink exporting real committed audit records, records per second —
 *       beside bare {@code INSERT}s of rows of the same shape.
 * </ul>
 * Medians and quartiles over rounds; the data directory is on the repository's disk (not tmpfs);
 * PostgreSQL (the testkit's server, fsync on, synchronous commit) is reached over loopback through one
 * pooled connection shared by target and baseline.
 */
public final class StoreBenchmarks {
    private static final int APPENDS_PER_ROUND = 50;
    private static final int EXPORTS_PER_ROUND = 200;

    private StoreBenchmarks() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        System.out.println(Machine.describe());
        Path home = Path.of(System.getProperty("skillgate.bench.home", "benchmarks"));
        Path work = Files.createDirectories(home.resolve("target").resolve("stores-" + UUID.randomUUID()));
        TestPostgres pg;
        try {
            pg = TestPostgres.start();
            TestPostgres server = pg;
            Runtime.getRuntime().addShutdownHook(new Thread(server::close));
        } catch (RuntimeException e) {
            System.out.println(
                    "PostgreSQL could not start here (" + e.getMessage() + "); only the embedded figures follow.");
            pg = null;
        }
        try {
            DataSource ds = pg == null ? null : new OneConnection(database(pg));
            if (ds != null) {
                PostgresSchema.migrate(ds);
                try (Connection c = ds.getConnection();
                        Statement s = c.createStatement()) {
                    s.execute(
                            "CREATE TABLE bare_append (id bigserial PRIMARY KEY, workflow uuid, sequence int, payload bytea)");
                    s.execute("CREATE TABLE bare_export (log_id char(32), sequence bigint, previous_chain_hash text, "
                            + "chain_hash text, recorded_at timestamptz, event_type text, event text, instance text, "
                            + "PRIMARY KEY (log_id, sequence))");
                }
            }
            KeyProvider keys = KeyProvider.keyFile(work.resolve("keys").resolve("workflow.key"));
            WorkflowStore embeddedStore = WorkflowStore.embedded(work.resolve("workflows"));
            WorkflowJournal embedded = WorkflowJournal.builder(embeddedStore, keys)
                    .renewLeases(false)
                    .maxRecords(4096)
                    .build();
            WorkflowJournal postgres = ds == null
                    ? null
                    : WorkflowJournal.builder(new PostgresWorkflowStore(ds), keys)
                            .renewLeases(false)
                            .maxRecords(4096)
                            .build();
            byte[] input = "{\"name\":\"Ada Lovelace\",\"greeting\":\"hello\"}".getBytes(StandardCharsets.UTF_8);
            int sealedSize = sealedSize(embedded, embeddedStore, input);
            List<ExportedRecord> exported =
                    ds == null ? List.of() : auditRecords(work.resolve("audit"), EXPORTS_PER_ROUND);

            List<Double> embeddedMicros = new ArrayList<>();
            List<Double> fsyncMicros = new ArrayList<>();
            List<Double> pgMicros = new ArrayList<>();
            List<Double> insertMicros = new ArrayList<>();
            List<Double> sinkRate = new ArrayList<>();
            List<Double> bareExportRate = new ArrayList<>();
            Path bareFile = work.resolve("bare.append");
            for (int round = -2; round < rounds; round++) { // two warm-up rounds
                double e = stepAppends(embedded, input);
                double f =
                        bareAppends(bareFile, sealedSize + 35); // + the store's frame header and fixed payload fields
                if (round >= 0) {
                    embeddedMicros.add(e);
                    fsyncMicros.add(f);
                }
                if (ds != null) {
                    double p = stepAppends(postgres, input);
                    double i = bareInserts(ds, sealedSize);
                    double sr = sinkExports(ds, exported);
                    double br = bareExports(ds, exported);
                    if (round >= 0) {
                        pgMicros.add(p);
                        insertMicros.add(i);
                        sinkRate.add(sr);
                        bareExportRate.add(br);
                    }
                }
            }
            System.out.println();
            System.out.println("rounds: " + rounds + " (after 2 warm-up), " + APPENDS_PER_ROUND + " appends and "
                    + EXPORTS_PER_ROUND + " exports per round; median [Q1, Q3]; sealed step record " + sealedSize
                    + " bytes");
            System.out.println();
            System.out.println("| measure | target | baseline | ratio |");
            System.out.println("|---|---|---|---|");
            row(
                    "workflow step record append, embedded (µs)",
                    embeddedMicros,
                    "bare fsync'd append, same bytes, same dir",
                    fsyncMicros);
            if (ds != null) {
                row(
                        "workflow step record append, PostgreSQL (µs)",
                        pgMicros,
                        "bare INSERT + commit, same bytes",
                        insertMicros);
                row(
                        "audit sink export, PostgreSQL (records/s)",
                        sinkRate,
                        "bare INSERT + commit, same row",
                        bareExportRate);
            }
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
    }

    private static void row(String name, List<Double> target, String baselineName, List<Double> baseline) {
        double ratio = Stats.median(target) / Stats.median(baseline);
        System.out.printf(
                "| %s | %s | %s: %s | %.2f |%n",
                name,
                Stats.medianWithQuartiles(target, "%.0f"),
                baselineName,
                Stats.medianWithQuartiles(baseline, "%.0f"),
                ratio);
    }

    private static DataSource database(TestPostgres pg) throws Exception {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres"));
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE bench");
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(pg.jdbcUrl("bench"));
        return ds;
    }

    private static WorkflowDefinition definition() {
        List<WorkflowDefinition.Step> steps = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            steps.add(new WorkflowDefinition.Step(
                    SkillName.of("hello-world"),
                    Revision.parse(Sha256Digest.hash(new byte[] {(byte) i}).toString()),
                    Optional.empty()));
        }
        return new WorkflowDefinition(
                WorkflowId.random(),
                RunId.random(),
                AgentId.of("agent-1"),
                Sha256Digest.hash(new byte[] {1}),
                "/work/space",
                steps,
                Sha256Digest.hash(new byte[] {2}));
    }

    /** The sealed size of a real start record (the settlement record carries the input as output: similar). */
    private static int sealedSize(WorkflowJournal j, WorkflowStore store, byte[] input) throws Exception {
        WorkflowDefinition def = definition();
        j.begin(def).orElseThrow();
        j.recordStart(def.workflow(), 0, input).orElseThrow();
        return store.records(def.workflow()).get(1).sealed().length;
    }

    /** Mean µs per step record (start, then settlement, alternately) over one round. */
    private static double stepAppends(WorkflowJournal j, byte[] input) {
        WorkflowDefinition def = definition();
        j.begin(def).orElseThrow();
        long t0 = System.nanoTime();
        for (int i = 0; i < APPENDS_PER_ROUND / 2; i++) {
            j.recordStart(def.workflow(), i, input).orElseThrow();
            j.recordSettlement(
                            def.workflow(),
                            i,
                            ExecutionStatus.SUCCEEDED,
                            CleanupStatus.PROVEN,
                            List.of(),
                            Optional.of(input))
                    .orElseThrow();
        }
        return (System.nanoTime() - t0) / 1000.0 / APPENDS_PER_ROUND;
    }

    private static double bareAppends(Path file, int bytes) throws Exception {
        byte[] b = new byte[bytes];
        new Random(1).nextBytes(b);
        try (FileChannel ch = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < APPENDS_PER_ROUND; i++) {
                ByteBuffer buf = ByteBuffer.wrap(b);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            return (System.nanoTime() - t0) / 1000.0 / APPENDS_PER_ROUND;
        }
    }

    private static double bareInserts(DataSource ds, int bytes) throws Exception {
        byte[] b = new byte[bytes];
        new Random(2).nextBytes(b);
        UUID w = UUID.randomUUID();
        long t0 = System.nanoTime();
        for (int i = 0; i < APPENDS_PER_ROUND; i++) {
            try (Connection c = ds.getConnection();
                    PreparedStatement p = c.prepareStatement(
                            "INSERT INTO bare_append (workflow, sequence, payload) VALUES (?, ?, ?)")) {
                p.setObject(1, w);
                p.setInt(2, i);
                p.setBytes(3, b);
                p.executeUpdate();
            }
        }
        return (System.nanoTime() - t0) / 1000.0 / APPENDS_PER_ROUND;
    }

    private static List<ExportedRecord> auditRecords(Path dir, int n) {
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir).build())) {
            for (int i = 0; i < n; i++) {
                log.recordPolicyChange(
                        new AuditEvent.PolicyChanged("ASK_EACH_TIME", Sha256Digest.hash(new byte[] {(byte) i})));
            }
            List<AuditRecord> records = log.records(0, n);
            List<ExportedRecord> out = new ArrayList<>();
            Sha256Digest previous = Sha256Digest.hash(new byte[0]);
            for (AuditRecord r : records) {
                out.add(new ExportedRecord("0".repeat(32), previous, r));
                previous = r.chainHash();
            }
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<ExportedRecord> withFreshLog(List<ExportedRecord> records) {
        String log = HexFormat.of()
                .formatHex(
                        Sha256Digest.hash(UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8))
                                .bytes(),
                        0,
                        16);
        List<ExportedRecord> out = new ArrayList<>();
        for (ExportedRecord r : records) {
            out.add(new ExportedRecord(log, r.previousChainHash(), r.record()));
        }
        return out;
    }

    private static double sinkExports(DataSource ds, List<ExportedRecord> records) throws Exception {
        PostgresAuditSink sink = new PostgresAuditSink(ds, "bench");
        List<ExportedRecord> fresh = withFreshLog(records);
        long t0 = System.nanoTime();
        for (ExportedRecord r : fresh) {
            sink.export(r);
        }
        return fresh.size() / ((System.nanoTime() - t0) / 1e9);
    }

    private static double bareExports(DataSource ds, List<ExportedRecord> records) throws Exception {
        List<ExportedRecord> fresh = withFreshLog(records);
        long t0 = System.nanoTime();
        for (ExportedRecord r : fresh) {
            try (Connection c = ds.getConnection();
                    PreparedStatement p =
                            c.prepareStatement("INSERT INTO bare_export VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                p.setString(1, r.logId());
                p.setLong(2, r.sequence());
                p.setString(3, r.previousChainHash().toString());
                p.setString(4, r.record().chainHash().toString());
                p.setObject(5, r.record().recordedAt().atOffset(java.time.ZoneOffset.UTC));
                p.setString(6, r.record().event().getClass().getSimpleName());
                p.setString(7, r.record().event().toString());
                p.setString(8, "bench");
                p.executeUpdate();
            }
        }
        return fresh.size() / ((System.nanoTime() - t0) / 1e9);
    }
}
