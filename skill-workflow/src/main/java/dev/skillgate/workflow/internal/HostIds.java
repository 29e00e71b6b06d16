package dev.skillgate.workflow.internal;

import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.UUID;

/** The default host id: a digest of the machine id and the boot id. Not API. */
public final class HostIds {
    private HostIds() {}

    /**
     * {@code h-} and 16 hex digits of SHA-256 over the machine id and the kernel's boot id, so a
     * reboot is another host (pids do not survive it). When either cannot be read, a random id for
     * this JVM: every other owner is then remote, and only a lease expiry lets this one take over.
     */
    public static String local() {
        String machine = read(Path.of("/etc/machine-id"));
        String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
        if (machine.isEmpty() || boot.isEmpty()) {
            return "r-" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        }
        byte[] digest = Sha256Digest.hash(
                        ("skillgate-host/v1\n" + machine + "\n" + boot + "\n").getBytes(StandardCharsets.UTF_8))
                .bytes();
        return "h-" + HexFormat.of().formatHex(digest, 0, 8);
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            String s = new String(in.readNBytes(256), StandardCharsets.US_ASCII).trim();
            return s.matches("[0-9a-f-]{8,64}") ? s : "";
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
