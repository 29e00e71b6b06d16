package dev.skillgate.workflow.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.workflow.KeyException;
import dev.skillgate.workflow.KeyProvider;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The default {@link KeyProvider}: one AES-256 key in a private file; data keys wrapped with
 * AES-256-GCM (12-byte random nonce, 128-bit tag) bound to the record's header. Not API.
 */
public final class FileKeyProvider implements KeyProvider {
    static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private volatile Loaded loaded;

    private record Loaded(SecretKeySpec key, String id) {}

    public FileKeyProvider(Path file) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath().normalize();
    }

    private Loaded key() throws KeyException {
        Loaded l = loaded;
        if (l != null) {
            return l;
        }
        synchronized (this) {
            if (loaded == null) {
                loaded = load();
            }
            return loaded;
        }
    }

    private Loaded load() throws KeyException {
        byte[] bytes = null;
        try {
            PrivateFiles.ensureDirectory(file.getParent());
            try {
                bytes = read();
            } catch (NoSuchFileException e) {
                create();
                bytes = read();
            }
            byte[] idDigest = Sha256Digest.hash(
                            concat("skillgate-workflow/v1/key-id\n".getBytes(StandardCharsets.US_ASCII), bytes))
                    .bytes();
            return new Loaded(
                    new SecretKeySpec(bytes, "AES"), "file:" + HexFormat.of().formatHex(idDigest, 0, 8));
        } catch (IOException e) {
            throw new KeyException(
                    ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "the workflow key file cannot be used: " + e.getMessage());
        } finally {
            if (bytes != null) {
                Arrays.fill(bytes, (byte) 0);
            }
        }
    }

    private byte[] read() throws IOException {
        byte[] bytes = PrivateFiles.readBounded(file, KEY_BYTES);
        if (bytes == null || bytes.length != KEY_BYTES) {
            throw new IOException("the key file is not exactly " + KEY_BYTES + " bytes");
        }
        if (PrivateFiles.sharedWithOthers(file)) {
            Arrays.fill(bytes, (byte) 0);
            throw new IOException("the key file is readable or writable by group or others");
        }
        return bytes;
    }

    private void create() throws IOException {
        byte[] key = new byte[KEY_BYTES];
        RANDOM.nextBytes(key);
        try (FileChannel ch = FileChannel.open(
                file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PrivateFiles.fileAttributes(file))) {
            PrivateFiles.writeFully(ch, ByteBuffer.wrap(key));
            ch.force(true);
        } catch (FileAlreadyExistsException e) {
            // another process created it first; read that one
        } finally {
            Arrays.fill(key, (byte) 0);
        }
        PrivateFiles.forceDirectory(file.getParent());
    }

    @Override
    public String keyId() throws KeyException {
        return key().id();
    }

    @Override
    public byte[] wrap(byte[] dataKey, byte[] context) throws KeyException {
        Loaded k = key();
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, k.key(), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(k.id().getBytes(StandardCharsets.US_ASCII));
            c.updateAAD(context);
            return concat(nonce, c.doFinal(dataKey));
        } catch (GeneralSecurityException e) {
            throw new KeyException(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "AES-GCM is unavailable");
        }
    }

    @Override
    public byte[] unwrap(String keyId, byte[] wrapped, byte[] context) throws KeyException {
        Loaded k = key();
        if (!k.id().equals(keyId)) {
            throw new KeyException(ErrorCode.WORKFLOW_KEY_MISMATCH, "the record was sealed under another key");
        }
        if (wrapped.length != NONCE_BYTES + KEY_BYTES + TAG_BITS / 8) {
            throw new KeyException(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the wrapped data key has the wrong length");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, k.key(), new GCMParameterSpec(TAG_BITS, wrapped, 0, NONCE_BYTES));
            c.updateAAD(k.id().getBytes(StandardCharsets.US_ASCII));
            c.updateAAD(context);
            return c.doFinal(wrapped, NONCE_BYTES, wrapped.length - NONCE_BYTES);
        } catch (AEADBadTagException e) {
            throw new KeyException(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the wrapped data key failed authentication");
        } catch (GeneralSecurityException e) {
            throw new KeyException(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "AES-GCM is unavailable");
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Override
    public String toString() {
        return "FileKeyProvider[" + file + "]";
    }
}
