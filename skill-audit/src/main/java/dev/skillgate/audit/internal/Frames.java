package dev.skillgate.audit.internal;

import dev.skillgate.model.Sha256Digest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The binary layout of {@code audit.log} (format version 1), big-endian throughout.
 *
 * <pre>
 * header (32 B): "SKAUDIT\0" | u16 version=1 | u16 flags=0 | 16 B logId | u32 CRC32C(bytes 0..27)
 * frame:         u32 len | u64 seq | u8 type | payload[len] | 32 B chain hash | u32 CRC32C(all before it)
 * chain:         h0 = SHA-256("skillgate-audit/v1/genesis" | logId)
 *                hN = SHA-256(0x01 | h(N-1) | the stored bytes len..payload of frame N)
 * </pre>
 *
 * The chain hashes the stored bytes exactly; nothing is re-serialised to verify.
 */
final class Frames {
    static final byte[] MAGIC = "SKAUDIT\0".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int HEADER_SIZE = 32;
    static final int LOG_ID_SIZE = 16;
    /** len + seq + type. */
    static final int PREFIX_SIZE = 13;
    /** chain hash + CRC. */
    static final int SUFFIX_SIZE = 36;

    static final int OVERHEAD = PREFIX_SIZE + SUFFIX_SIZE;
    /** Largest payload accepted; a larger length field is corruption, never an allocation. */
    static final int MAX_PAYLOAD = 64 * 1024;

    static final int MAX_FRAME = OVERHEAD + MAX_PAYLOAD;
    static final int HASH_SIZE = 32;

    private static final byte[] GENESIS_TAG = "skillgate-audit/v1/genesis".getBytes(StandardCharsets.US_ASCII);

    private Frames() {}

    /** A log header for {@code logId}. */
    static byte[] header(byte[] logId) {
        ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE);
        b.put(MAGIC).putShort((short) VERSION).putShort((short) 0).put(logId);
        b.putInt(crc(b.array(), 0, 28));
        return b.array();
    }

    /**
     * Checks a 32-byte header and returns its log id.
     *
     * @throws FormatException naming what is wrong
     */
    static byte[] parseHeader(byte[] h) throws FormatException {
        if (h.length < HEADER_SIZE) {
            throw new FormatException("the log header is truncated");
        }
        if (!Arrays.equals(h, 0, 8, MAGIC, 0, 8)) {
            throw new FormatException("the log header has no SKAUDIT magic");
        }
        ByteBuffer b = ByteBuffer.wrap(h);
        if (crc(h, 0, 28) != b.getInt(28)) {
            throw new FormatException("the log header CRC does not match");
        }
        int version = Short.toUnsignedInt(b.getShort(8));
        if (version != VERSION) {
            throw new FormatException("unknown log format version " + version);
        }
        if (b.getShort(10) != 0) {
            throw new FormatException("unknown log header flags");
        }
        return Arrays.copyOfRange(h, 12, 12 + LOG_ID_SIZE);
    }

    /** The chain value before the first record of a log. */
    static byte[] genesis(byte[] logId) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update(GENESIS_TAG);
        md.update(logId);
        return md.digest();
    }

    /** {@code SHA-256(0x01 | previous | stored[offset, offset + length))}. */
    static byte[] chain(MessageDigest md, byte[] previous, byte[] stored, int offset, int length) {
        md.reset();
        md.update((byte) 1);
        md.update(previous);
        md.update(stored, offset, length);
        return md.digest();
    }

    /** A complete frame. */
    static byte[] frame(long seq, RecordType type, byte[] payload, byte[] previous) {
        if (payload.length == 0 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload must be 1-" + MAX_PAYLOAD + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(OVERHEAD + payload.length);
        b.putInt(payload.length).putLong(seq).put((byte) type.code).put(payload);
        byte[] hash = chain(Sha256Digest.newMessageDigest(), previous, b.array(), 0, PREFIX_SIZE + payload.length);
        b.put(hash);
        b.putInt(crc(b.array(), 0, b.position()));
        return b.array();
    }

    /** The chain hash stored in a complete frame. */
    static byte[] storedHash(byte[] frame) {
        int end = frame.length - 4;
        return Arrays.copyOfRange(frame, end - HASH_SIZE, end);
    }

    static int crc(byte[] b, int offset, int length) {
        CRC32C c = new CRC32C();
        c.update(b, offset, length);
        return (int) c.getValue();
    }

    /** A structural fault in stored bytes; the message never quotes them. */
    static final class FormatException extends Exception {
        private static final long serialVersionUID = 1L;

        FormatException(String message) {
            super(message);
        }
    }
}
