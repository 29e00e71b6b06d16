package dev.skillgate.audit;

import dev.skillgate.audit.internal.Ed25519;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A host's Ed25519 key for signing audit checkpoints (Bouncy Castle).
 *
 * <p>Signing makes a checkpoint tamper-evident while an outside party holds it; it does not protect
 * the log itself. A key stored next to the log adds nothing against someone who can rewrite the log
 * as the same user: keep it where that user's tools cannot reach it if that matters (decision
 * record 0163). The private half is never exposed by this class.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class CheckpointKey {
    private static final String FILE_HEADER = "skillgate-audit/v1/checkpoint-key";

    private final byte[] seed;
    private final CheckpointPublicKey publicKey;

    private CheckpointKey(byte[] seed) {
        this.seed = seed.clone();
        this.publicKey = CheckpointPublicKey.of(Ed25519.publicKey(this.seed));
    }

    /** A fresh random key. */
    public static CheckpointKey generate() {
        return new CheckpointKey(Ed25519.newSeed());
    }

    /** The key for a 32-byte RFC 8032 seed (copied). */
    public static CheckpointKey fromSeed(byte[] seed) {
        Objects.requireNonNull(seed, "seed");
        if (seed.length != 32) {
            throw new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "an Ed25519 seed is 32 bytes");
        }
        return new CheckpointKey(seed);
    }

    /**
     * Loads the key stored in {@code file}, or creates one there ({@code 0600}, written to a temporary
     * file, fsync'd and renamed). Links are not followed. A key file readable by group or others is
     * refused.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) for a malformed or exposed file
     */
    public static CheckpointKey loadOrCreate(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the key file is not a regular file");
            }
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                if (!PosixFilePermissions.fromString("rw-------").containsAll(mode)) {
                    throw new InvalidValueException(
                            ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the key file is accessible to group or others");
                }
            }
            byte[] text;
            try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                text = in.readNBytes(200);
            }
            String s = new String(text, StandardCharsets.US_ASCII);
            String[] lines = s.split("\n", -1);
            if (lines.length != 3 || !lines[0].equals(FILE_HEADER) || !lines[2].isEmpty()) {
                throw new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the key file is malformed");
            }
            byte[] seed;
            try {
                seed = Base64.getDecoder().decode(lines[1]);
            } catch (IllegalArgumentException e) {
                throw new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the key file is malformed");
            }
            try {
                return fromSeed(seed);
            } finally {
                Arrays.fill(seed, (byte) 0);
            }
        }
        CheckpointKey key = generate();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        byte[] content = (FILE_HEADER + "\n" + Base64.getEncoder().encodeToString(key.seed) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        Set<StandardOpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try (FileChannel ch =
                Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")
                        ? FileChannel.open(
                                tmp,
                                options,
                                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                        : FileChannel.open(tmp, options)) {
            Channels.newOutputStream(ch).write(content);
            ch.force(true);
        } finally {
            Arrays.fill(content, (byte) 0);
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return key;
    }

    /** The public half, to hand to whoever verifies checkpoints. */
    public CheckpointPublicKey publicKey() {
        return publicKey;
    }

    byte[] sign(byte[] message) {
        return Ed25519.sign(seed, message);
    }

    @Override
    public String toString() {
        return "CheckpointKey[" + publicKey.keyId() + "]";
    }
}
