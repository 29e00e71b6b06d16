package dev.skillgate.runner.linux.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A numeric uid that no process and no passwd entry uses, for rows that need the helper and the
 * script to run as the same unprivileged user. Needs root and {@code setpriv}; the helper is run
 * through {@code setpriv --reuid --regid --clear-groups}. Nothing is added to {@code /etc/passwd}.
 */
final class ThrowawayUid {
    static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    final int uid;
    final Path root;
    final Path helperCopy;
    final Path fixtures;

    private ThrowawayUid(int uid, Path root, Path helperCopy, Path fixtures) {
        this.uid = uid;
        this.root = root;
        this.helperCopy = helperCopy;
        this.fixtures = fixtures;
    }

    static boolean possible() {
        return "root".equals(System.getProperty("user.name")) && Files.isExecutable(SETPRIV);
    }

    /** Picks an unused uid and prepares a world-traversable directory with the helper and fixtures. */
    static ThrowawayUid create(Path helper) throws IOException {
        int uid = pickUnused();
        Path root = Files.createTempDirectory(Path.of("/tmp"), "sg-uid-");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path bin = root.resolve("skillgate-supervisor");
        Files.copy(helper, bin, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("r-xr-xr-x"));
        Path fixtures = Files.createDirectory(root.resolve("fixtures"));
        Files.setPosixFilePermissions(fixtures, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path source = TestRun.fixture("lib.mjs").getParent();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(source)) {
            for (Path f : ds) {
                Path to = fixtures.resolve(f.getFileName().toString());
                Files.copy(f, to);
                Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("r--r--r--"));
            }
        }
        return new ThrowawayUid(uid, root, bin, fixtures);
    }

    /**
     * A launcher that runs the copied helper as this uid (an unprivileged process cannot open the
     * JVM's {@code /proc/<pid>/fd}, so it cannot exec the verified descriptor; the copy is what runs).
     */
    HelperLauncher launcher() {
        return HelperLauncher.substitute((ignored, args) -> {
            ProcessBuilder pb = new ProcessBuilder(
                    SETPRIV.toString(),
                    "--reuid=" + uid,
                    "--regid=" + uid,
                    "--clear-groups",
                    "--",
                    helperCopy.toString());
            pb.environment().clear();
            pb.directory(new File("/"));
            return pb.start();
        });
    }

    /** A run whose directory belongs to the throwaway uid and whose fixture is the world-readable copy. */
    TestRun run(String fixture, String... args) throws IOException {
        TestRun t = TestRun.of(root, fixture, args);
        Files.setAttribute(t.dir, "unix:uid", uid);
        Files.setAttribute(t.dir, "unix:gid", uid);
        t.arguments.set(0, fixtures.resolve(fixture).toString());
        return t;
    }

    /** Starts a canary process as this uid, outside any supervisor, carrying the tag of {@code t}. */
    Process canary(TestRun t) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(
                SETPRIV.toString(),
                "--reuid=" + uid,
                "--regid=" + uid,
                "--clear-groups",
                "--",
                "/bin/sh",
                "-c",
                "exec sleep 60",
                "canary-" + t.tag);
        pb.environment().clear();
        pb.environment().put("SKILLGATE_TEST_TAG", t.tag);
        pb.environment().put("CANARY_SECRET", "stand-in for a credential in the JVM's environment");
        pb.directory(t.dir.toFile());
        return pb.start();
    }

    private static int pickUnused() throws IOException {
        Random random = new Random();
        String passwd = Files.readString(Path.of("/etc/passwd"), StandardCharsets.UTF_8);
        for (int attempt = 0; attempt < 100; attempt++) {
            int uid = 2_000_000_000 + random.nextInt(100_000_000);
            if (passwd.contains(":" + uid + ":") || uidInUse(uid)) {
                continue;
            }
            return uid;
        }
        throw new IOException("no unused uid found");
    }

    private static boolean uidInUse(int uid) throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("[0-9]+"))
                    .anyMatch(p -> {
                        try {
                            for (String line : Files.readAllLines(p.resolve("status"))) {
                                if (line.startsWith("Uid:")) {
                                    return line.matches("Uid:\\s+.*\\b" + uid + "\\b.*");
                                }
                            }
                        } catch (IOException e) {
                            return false;
                        }
                        return false;
                    });
        }
    }
}
