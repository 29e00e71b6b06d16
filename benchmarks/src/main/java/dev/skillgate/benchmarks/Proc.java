package dev.skillgate.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs a peer tool (node, npm, python) for a harness: an argument array (never a shell), a bounded
 * wait, stdout collected up to a bound, stderr kept short for the report.
 *
 * <p>For the harness's own tools only; not hardened for hostile programs.
 */
public final class Proc {
    /** Most stdout bytes kept (the peers print one JSON document). */
    static final int MAX_STDOUT = 64 * 1024 * 1024;

    /** Most stderr bytes kept. */
    static final int MAX_STDERR = 4 * 1024;

    private Proc() {}

    /**
     * What a run produced.
     *
     * @param exitCode the exit status, or -1 when it timed out (it was killed)
     * @param stdout stdout as UTF-8 (up to the bound)
     * @param stderr the start of stderr as UTF-8
     * @param wallNanos from just before the spawn to the exit
     */
    public record Result(int exitCode, String stdout, String stderr, long wallNanos) {
        public Result {
            Objects.requireNonNull(stdout, "stdout");
            Objects.requireNonNull(stderr, "stderr");
        }

        /** Whether it exited 0. */
        public boolean ok() {
            return exitCode == 0;
        }

        /** A one-line reason for a failed run: exit status and the start of stderr. */
        public String failure() {
            String first = stderr.strip()
                    .lines()
                    .limit(3)
                    .reduce((a, b) -> a + " / " + b)
                    .orElse("");
            return (exitCode == -1 ? "timed out" : "exit " + exitCode) + (first.isEmpty() ? "" : ": " + first);
        }
    }

    /** Runs {@code command} in {@code directory} (null: inherit), waiting at most {@code timeoutSeconds}. */
    public static Result run(List<String> command, Path directory, long timeoutSeconds) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        if (directory != null) {
            pb.directory(directory.toFile());
        }
        long start = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread outReader = drain(p.getInputStream(), out, MAX_STDOUT);
        Thread errReader = drain(p.getErrorStream(), err, MAX_STDERR);
        try {
            boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            long wall = System.nanoTime() - start;
            if (!done) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor();
            }
            outReader.join(10_000);
            errReader.join(10_000);
            String stdout;
            String stderr;
            synchronized (out) {
                stdout = out.toString(StandardCharsets.UTF_8);
            }
            synchronized (err) {
                stderr = err.toString(StandardCharsets.UTF_8);
            }
            return new Result(done ? p.exitValue() : -1, stdout, stderr, wall);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static Thread drain(InputStream in, ByteArrayOutputStream sink, int bound) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[8192];
                    try (in) {
                        int n;
                        while ((n = in.read(buffer)) > 0) {
                            synchronized (sink) {
                                int room = bound - sink.size();
                                if (room > 0) {
                                    sink.write(buffer, 0, Math.min(room, n));
                                }
                            }
                        }
                    } catch (IOException e) {
                        // What was read is kept.
                    }
                },
                "bench-proc-drain");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
