package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Asks the running kernel, once per JVM, whether it write-denies executables: an {@code exec} of a
 * file this JVM holds open for writing must fail with {@code ETXTBSY}. The witness rule of decision
 * 0838 (a live helper vouches for the helper file instead of a hash) rests on that mechanism
 * ({@code deny_write_access}, the same one that makes a running executable refuse writers), which
 * which a kernel or a file system may not provide (a mainline kernel dropped it for a time). Until this probe
 * has seen {@code ETXTBSY}, no witness vouches and every start hashes (decision 0848).
 *
 * <p>The probe file is empty, mode 0700, created exclusively in the helper's own directory (which
 * must allow exec for the helper anyway) and removed afterwards. If the kernel does start it, the
 * JDK hands the empty file to {@code /bin/sh}, which runs nothing; the process is waited for.
 * Any other outcome (EACCES on a {@code noexec} mount, an I/O error) counts as "not shown".
 */
final class WriteDenyProbe {
    private static final int UNKNOWN = 0;
    private static final int HOLDS = 1;
    private static final int NOT_SHOWN = 2;
    private static final AtomicInteger STATE = new AtomicInteger(UNKNOWN);

    private WriteDenyProbe() {}

    /** Whether a probe in this JVM has seen the kernel refuse to execute a file open for writing. */
    static boolean holds() {
        return STATE.get() == HOLDS;
    }

    /** Runs the probe in {@code directory} unless this JVM already has an answer; returns it. */
    static boolean ask(Path directory) {
        int s = STATE.get();
        if (s != UNKNOWN) {
            return s == HOLDS;
        }
        boolean shown = probe(directory);
        STATE.compareAndSet(UNKNOWN, shown ? HOLDS : NOT_SHOWN);
        return STATE.get() == HOLDS;
    }

    /** One probe in {@code directory}, uncached: true only if the exec failed with ETXTBSY. */
    static boolean probe(Path directory) {
        return probe(directory, true);
    }

    /**
     * As {@link #probe(Path)}; with {@code holdWriter} false the file is closed before the exec, so a
     * kernel starts it and the probe must answer "not shown" (the control case of its test).
     */
    static boolean probe(Path directory, boolean holdWriter) {
        // Exclusive creation in a private directory: the name needs to be unique, not secret.
        Path file = directory.resolve(
                ".write-deny-probe-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime()));
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException | UnsupportedOperationException e) {
            return false; // an existing name included: nothing of ours to probe with
        }
        try (FileChannel writer = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            if (!holdWriter) {
                writer.close();
            }
            Process p;
            try {
                p = new ProcessBuilder(file.toString())
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
            } catch (IOException e) {
                // The JDK reports the exec's errno as "error=26, Text file busy".
                return String.valueOf(e.getMessage()).contains("error=26,");
            }
            // Started: the kernel did not deny the exec (the empty file ran as a shell script).
            p.getOutputStream().close();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return false;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // A leftover empty 0700 file in the private helper directory is harmless.
            }
        }
    }
}
