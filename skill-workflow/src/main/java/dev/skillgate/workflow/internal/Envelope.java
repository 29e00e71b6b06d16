package dev.skillgate.workflow.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.workflow.KeyException;
import dev.skillgate.workflow.KeyProvider;
import dev.skillgate.workflow.WorkflowId;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The record envelope: an authenticated header (record id, schema version, owner and fencing token,
 * key id, wrapped data key), a random nonce and the AES-256-GCM ciphertext of the plaintext record
 * under a fresh 32-byte data key. Not API.
 *
 * <pre>
 * "SGWE" | format u8 (1) | schema u16 | workflow 16 | sequence u32 | token u64
 *        | owner u8 len + ASCII | key id u8 len + ASCII | wrapped key u16 len + bytes
 *        | nonce 12 | ciphertext + 16-byte tag
 * </pre>
 *
 * The wrapped key is bound to the header before it (key-wrap context); the ciphertext's additional
 * data is the whole header, wrapped key included.
 */
public final class Envelope {
    private static final byte[] MAGIC = {'S', 'G', 'W', 'E'};
    private static final int FORMAT = 1;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private Envelope() {}

    /** What the header says. */
    public record Header(
            int schemaVersion, WorkflowId workflow, int sequence, long fencingToken, String owner, String keyId) {}

    /** An opened envelope: its header and the plaintext. */
    public record Opened(Header header, byte[] plaintext) {}

    /** A refusal to open, with its code. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient ErrorCode code;

        public Refused(ErrorCode code, String message) {
            super(message);
            this.code = code;
        }

        public ErrorCode code() {
            return code;
        }
    }

    /** Seals {@code plaintext} for the given header values. */
    public static byte[] seal(Header h, byte[] plaintext, KeyProvider keys) throws KeyException {
        if (!KEY_ID.matcher(h.keyId()).matches()) {
            throw new KeyException(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "the key provider returned an invalid key id");
        }
        byte[] prefix = prefix(h);
        byte[] dataKey = new byte[32];
        RANDOM.nextBytes(dataKey);
        try {
            byte[] wrapped = keys.wrap(dataKey, prefix);
            if (wrapped == null || wrapped.length == 0 || wrapped.length > 4096) {
                throw new KeyException(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "the key provider returned no wrapped key");
            }
            ByteBuffer aad = ByteBuffer.allocate(prefix.length + 2 + wrapped.length);
            aad.put(prefix).putShort((short) wrapped.length).put(wrapped);
            byte[] header = aad.array();
            byte[] nonce = new byte[NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(dataKey, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
            c.updateAAD(header);
            byte[] ct = c.doFinal(plaintext);
            ByteBuffer out = ByteBuffer.allocate(header.length + NONCE_BYTES + ct.length);
            return out.put(header).put(nonce).put(ct).array();
        } catch (GeneralSecurityException e) {
            throw new KeyException(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "AES-GCM is unavailable");
        } finally {
            Arrays.fill(dataKey, (byte) 0);
        }
    }

    private static byte[] prefix(Header h) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(96);
            DataOutputStream out = new DataOutputStream(bytes);
            out.write(MAGIC);
            out.writeByte(FORMAT);
            out.writeShort(h.schemaVersion());
            out.writeLong(h.workflow().value().getMostSignificantBits());
            out.writeLong(h.workflow().value().getLeastSignificantBits());
            out.writeInt(h.sequence());
            out.writeLong(h.fencingToken());
            byte[] owner = h.owner().getBytes(StandardCharsets.US_ASCII);
            out.writeByte(owner.length);
            out.write(owner);
            byte[] key = h.keyId().getBytes(StandardCharsets.US_ASCII);
            out.writeByte(key.length);
            out.write(key);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Opens {@code sealed}: the structure, then the data key through {@code keys}, then the
     * ciphertext against the header. Every failure is a {@link Refused} with its code; nothing of the
     * plaintext is returned unless authentication succeeded.
     */
    public static Opened open(byte[] sealed, KeyProvider keys) throws Refused {
        ByteBuffer in = ByteBuffer.wrap(sealed);
        Header h;
        byte[] prefix;
        byte[] wrapped;
        int headerEnd;
        try {
            byte[] magic = new byte[4];
            in.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "not a workflow record envelope");
            }
            int format = in.get() & 0xff;
            if (format != FORMAT) {
                throw new Refused(ErrorCode.WORKFLOW_SCHEMA_UNKNOWN, "unknown envelope format " + format);
            }
            int schema = in.getShort() & 0xffff;
            UUID id = new UUID(in.getLong(), in.getLong());
            int sequence = in.getInt();
            long token = in.getLong();
            String owner = ascii(in, in.get() & 0xff);
            String keyId = ascii(in, in.get() & 0xff);
            int prefixEnd = in.position();
            int wrappedLength = in.getShort() & 0xffff;
            wrapped = new byte[wrappedLength];
            in.get(wrapped);
            headerEnd = in.position();
            prefix = Arrays.copyOfRange(sealed, 0, prefixEnd);
            if (id.version() != 4
                    || sequence < 0
                    || token < 1
                    || !KEY_ID.matcher(keyId).matches()) {
                throw new Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the record header is malformed");
            }
            if (sealed.length - headerEnd < NONCE_BYTES + TAG_BITS / 8) {
                throw new Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the record is truncated");
            }
            h = new Header(schema, new WorkflowId(id), sequence, token, owner, keyId);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the record header is truncated or malformed");
        }
        byte[] dataKey;
        try {
            dataKey = keys.unwrap(h.keyId(), wrapped, prefix);
        } catch (KeyException e) {
            throw new Refused(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            throw new Refused(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "the key provider failed");
        }
        if (dataKey == null || dataKey.length != 32) {
            throw new Refused(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "the key provider returned no 32-byte data key");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(
                    Cipher.DECRYPT_MODE,
                    new SecretKeySpec(dataKey, "AES"),
                    new GCMParameterSpec(TAG_BITS, sealed, headerEnd, NONCE_BYTES));
            c.updateAAD(sealed, 0, headerEnd);
            int ctStart = headerEnd + NONCE_BYTES;
            byte[] plain = c.doFinal(sealed, ctStart, sealed.length - ctStart);
            if (h.schemaVersion() != dev.skillgate.workflow.WorkflowRecord.SCHEMA_VERSION) {
                Arrays.fill(plain, (byte) 0);
                throw new Refused(
                        ErrorCode.WORKFLOW_SCHEMA_UNKNOWN, "unknown record schema version " + h.schemaVersion());
            }
            return new Opened(h, plain);
        } catch (AEADBadTagException e) {
            throw new Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the record failed authentication");
        } catch (GeneralSecurityException e) {
            throw new Refused(ErrorCode.WORKFLOW_KEY_UNAVAILABLE, "AES-GCM is unavailable");
        } finally {
            Arrays.fill(dataKey, (byte) 0);
        }
    }

    private static String ascii(ByteBuffer in, int length) {
        byte[] b = new byte[length];
        in.get(b);
        for (byte x : b) {
            if (x < 0x20 || x > 0x7e) {
                throw new IllegalArgumentException("non-printable header text");
            }
        }
        return new String(b, StandardCharsets.US_ASCII);
    }
}
