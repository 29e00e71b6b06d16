package dev.skillgate.cli.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The bytes of the command-line arguments as the kernel passed them, so that an argument that is
 * not valid UTF-8 is judged on its bytes (like {@code @FILE}) instead of on the U+FFFD the JVM made
 * of them (decision 0637). On Linux they are the last entries of {@code /proc/self/cmdline}; they
 * are used only when every one of them decodes, as the JVM decoded it, to exactly the argument the
 * program received. Otherwise (another OS, an embedding host, a launcher that rewrote arguments)
 * nothing is claimed and each argument's own UTF-8 encoding is used.
 */
final class RawArguments {
    /** Longest {@code /proc/self/cmdline} read: more than Linux's usual argument limit. */
    private static final int MAX = 8 * 1024 * 1024;

    private final List<String> args;
    private final List<byte[]> raw;
    private boolean thisProcess;

    private RawArguments(List<String> args, List<byte[]> raw) {
        this.args = List.copyOf(args);
        this.raw = raw;
    }

    /**
     * Whether these are the arguments of this very process, whose standard streams the command
     * writes to (not an embedding host's streams): only then may {@code run} draw a progress line on
     * a terminal.
     */
    boolean thisProcess() {
        return thisProcess;
    }

    /** No raw bytes known: every argument is its UTF-8 encoding. */
    static RawArguments none() {
        return new RawArguments(List.of(), List.of());
    }

    /** The raw bytes of {@code args} from {@code /proc/self/cmdline}, when they match. */
    static RawArguments ofThisProcess(String[] args) {
        Optional<byte[]> cmdline = read(Path.of("/proc/self/cmdline"));
        RawArguments found = cmdline.isEmpty() ? none() : matching(List.of(args), cmdline.get(), jnuCharset());
        found.thisProcess = true;
        return found;
    }

    /**
     * The raw bytes of {@code args} when the NUL-terminated entries of {@code cmdline} end with
     * entries that decode (with {@code charset}, replacing what cannot be decoded) to exactly them.
     */
    static RawArguments matching(List<String> args, byte[] cmdline, Charset charset) {
        List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++) {
            if (cmdline[i] == 0) {
                entries.add(Arrays.copyOfRange(cmdline, start, i));
                start = i + 1;
            }
        }
        if (start < cmdline.length) {
            entries.add(Arrays.copyOfRange(cmdline, start, cmdline.length));
        }
        if (entries.size() < args.size()) {
            return none();
        }
        List<byte[]> tail = entries.subList(entries.size() - args.size(), entries.size());
        for (int i = 0; i < args.size(); i++) {
            if (!new String(tail.get(i), charset).equals(args.get(i))) {
                return none();
            }
        }
        return new RawArguments(args, List.copyOf(tail));
    }

    /**
     * The bytes of the argument {@code value}: the raw bytes when they are known and unambiguous
     * (every argument that decoded to {@code value} had the same bytes), else its UTF-8 encoding (an
     * unpaired surrogate becomes {@code ?}, which the JSON decoder never sees as valid UTF-8 either way).
     */
    byte[] bytesOf(String value) {
        byte[] found = null;
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals(value)) {
                byte[] b = raw.get(i);
                if (found != null && !Arrays.equals(found, b)) {
                    return value.getBytes(StandardCharsets.UTF_8);
                }
                found = b;
            }
        }
        return found != null ? found.clone() : value.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the raw bytes of the arguments are known. */
    boolean known() {
        return !raw.isEmpty();
    }

    private static Charset jnuCharset() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    private static Optional<byte[]> read(Path file) {
        if (!Files.isReadable(file)) {
            return Optional.empty();
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX + 1);
            return bytes.length > MAX ? Optional.empty() : Optional.of(bytes);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
