package dev.skillgate.runner.linux.internal;

import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test ownership recorder that does what the runner's does: writes the owner to a file, fsyncs it,
 * and only then returns. It also notes whether the helper had any child at that moment, which must
 * never be the case (the start barrier).
 */
final class FsyncRecorder implements OwnershipRecorder {
    private final Path file;
    private final boolean fail;
    final AtomicReference<SupervisorIdentity> recorded = new AtomicReference<>();
    final AtomicReference<String> helperChildrenAtRecord = new AtomicReference<>();

    FsyncRecorder(Path file, boolean fail) {
        this.file = file;
        this.fail = fail;
    }

    @Override
    public void record(SupervisorIdentity owner) throws IOException {
        helperChildrenAtRecord.set(children(owner.pid()));
        if (fail) {
            throw new IOException("simulated: the staging volume is full");
        }
        String line = owner.pid() + " " + owner.startTimeToken() + " " + owner.attemptToken() + "\n";
        try (var ch =
                java.nio.channels.FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
            ch.force(true);
        }
        recorded.set(owner);
    }

    private static String children(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(pid), "children"))
                    .trim();
        } catch (IOException e) {
            return "unreadable";
        }
    }
}
