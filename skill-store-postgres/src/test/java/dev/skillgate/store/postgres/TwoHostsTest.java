package dev.skillgate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.testkit.postgres.TestPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real host JVMs (child processes started with {@link ProcessBuilder}) on one real PostgreSQL
 * database, each with its own data directory, sharing policy, workflow state, the workflow key and
 * the audit export table; real {@code node} and the Linux supervisor run the steps.
 */
@EnabledOnOs(OS.LINUX)
@org.junit.jupiter.api.Timeout(300)
class TwoHostsTest {
    @TempDir
    Path dir;

    private String database;
    private DataSource dataSource;
    private Path skills;
    private Path workspace;
    private final List<Host> hosts = new ArrayList<>();

    /** One child host JVM and its line protocol. */
    final class Host {
        final Process process;
        final Writer in;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Host(String instance, String hostId, long leaseMillis) throws IOException, InterruptedException {
            Path data = Files.createDirectories(dir.resolve("data " + instance));
            process = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xshare:auto",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            System.getProperty("java.class.path"),
                            PgHost.class.getName(),
                            TestPostgres.shared().jdbcUrl(database),
                            data.toString(),
                            dir.resolve("shared-key").resolve("workflow.key").toString(),
                            instance,
                            hostId,
                            skills.toString(),
                            workspace.toString(),
                            Long.toString(leaseMillis))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader r =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("eof");
                }
            });
            reader.setDaemon(true);
            reader.start();
            hosts.add(this);
            assertThat(next()).startsWith("ready");
        }

        String next() throws InterruptedException {
            String line = lines.poll(120, TimeUnit.SECONDS);
            assertThat(line).as("an answer from the host").isNotNull();
            return line;
        }

        String send(String command) throws IOException, InterruptedException {
            in.write(command + "\n");
            in.flush();
            return next();
        }

        void signal(String signal) throws IOException, InterruptedException {
            assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                            .start()
                            .waitFor())
                    .isZero();
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        database = Pg.freshDatabaseName();
        dataSource = Pg.dataSource(database);
        PostgresSchema.migrate(dataSource);
        skills = Files.createDirectories(dir.resolve("skills"));
        copy(
                Path.of("..", "examples", "skills", "hello-world")
                        .toAbsolutePath()
                        .normalize(),
                skills.resolve("hello-world"));
        workspace = Files.createDirectories(dir.resolve("work space"));
        Files.createDirectories(dir.resolve("shared-key"));
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Host h : hosts) {
            h.process.toHandle().destroyForcibly();
            h.process.waitFor(30, TimeUnit.SECONDS);
        }
        // Every instance's export is one contiguous, linked chain in the shared table.
        for (PostgresAuditTable.LogExport log : PostgresAuditTable.verify(dataSource)) {
            assertThat(log.contiguous())
                    .as("audit export of %s (%s)", log.instance(), log.logId())
                    .isTrue();
            assertThat(log.first()).isEqualTo(1);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(d).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static String run() {
        return "run-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void theSecondHostTakesOverOnlyAfterTheFirstIsKilledAndAsksForConsentAgain() throws Exception {
        Host first = new Host("host-one", "-", 30_000);
        Host second = new Host("host-two", "-", 30_000);
        assertThat(first.send("policy APPROVE_WORKFLOW_RUN")).isEqualTo("ok");
        String run = run();
        String approved = first.send("approve " + run + " 2");
        assertThat(approved).startsWith("ok ");
        String id = approved.substring(3);
        assertThat(first.send("exec " + run + " Ada")).isEqualTo("env SUCCEEDED ");
        assertThat(second.send("recover " + id)).isEqualTo("ok DONE,NOT_STARTED");

        // The owner lives: its pid and start time are on this host.
        assertThat(second.send("takeover " + id)).isEqualTo("err WORKFLOW_OWNER_ALIVE");
        // The second host has no consent for the run.
        assertThat(second.send("exec " + run + " Grace")).isEqualTo("env REFUSED POLICY_NO_PLAN");

        first.signal("KILL");
        assertThat(first.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        // Proven dead (pid gone), long before its 30 s lease ends.
        assertThat(second.send("takeover " + id)).isEqualTo("ok 2 DONE,NOT_STARTED");
        assertThat(second.send("exec " + run + " Grace"))
                .as("no step runs on the dead host's consent")
                .isEqualTo("env REFUSED POLICY_NO_PLAN");
        assertThat(second.send("resume " + id)).isEqualTo("asked 1 steps 1");
        assertThat(second.send("exec " + run + " Grace")).isEqualTo("env SUCCEEDED ");
        assertThat(second.send("recover " + id)).isEqualTo("ok DONE,DONE ended COMPLETED");
        assertThat(second.send("quit")).isEqualTo("bye");
    }

    @Test
    void aPausedOwnersLateWriteIsRejectedByTheFencingToken() throws Exception {
        // Different host ids: each is remote to the other, so only the lease's expiry hands over.
        Host first = new Host("host-a", "machine-a", 2_000);
        Host second = new Host("host-b", "machine-b", 2_000);
        assertThat(first.send("policy APPROVE_WORKFLOW_RUN")).isEqualTo("ok");
        String run = run();
        String id = first.send("approve " + run + " 3").substring(3);
        assertThat(first.send("exec " + run + " Ada")).isEqualTo("env SUCCEEDED ");
        Thread.sleep(2_500); // longer than the lease: the live owner keeps renewing it
        assertThat(second.send("takeover " + id)).isEqualTo("err WORKFLOW_OWNER_ALIVE");

        first.signal("STOP");
        try {
            Thread.sleep(3_500); // the paused owner cannot renew; its lease ends on the database clock
            assertThat(second.send("takeover " + id)).isEqualTo("ok 2 DONE,NOT_STARTED,NOT_STARTED");
        } finally {
            first.signal("CONT");
        }
        // The resumed first host still holds its plan and believes it owns the workflow: its write
        // carries fencing token 1, the store rejects it, and nothing is launched.
        assertThat(first.send("exec " + run + " Late")).isEqualTo("env REFUSED WORKFLOW_FENCED");
        assertThat(second.send("recover " + id)).isEqualTo("ok DONE,NOT_STARTED,NOT_STARTED");
        assertThat(first.send("takeover " + id)).isEqualTo("err WORKFLOW_OWNER_ALIVE");

        // The remaining steps ask for consent again on the new owner.
        assertThat(second.send("resume " + id)).isEqualTo("asked 1 steps 2");
        assertThat(second.send("exec " + run + " Grace")).isEqualTo("env SUCCEEDED ");

        // Policy revoked on one instance refuses the next launch on the other.
        assertThat(first.send("policy BLOCKED")).isEqualTo("ok");
        assertThat(second.send("exec " + run + " Linus")).isEqualTo("env REFUSED POLICY_BLOCKED");
        assertThat(second.send("recover " + id)).isEqualTo("ok DONE,DONE,NOT_STARTED");
        assertThat(first.send("quit")).isEqualTo("bye");
        assertThat(second.send("quit")).isEqualTo("bye");
    }
}
