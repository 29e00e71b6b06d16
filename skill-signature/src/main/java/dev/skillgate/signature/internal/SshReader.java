package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import java.util.Arrays;

/**
 * A strict reader for SSH wire encoding (RFC 4251 §5): {@code uint32} big-endian and {@code string}
 * as a {@code uint32} length followed by that many bytes.
 *
 * <p>Every length is checked against the bytes that remain before anything is allocated, so a
 * forged length can never cause a large allocation or a read past the end.
 */
final class SshReader {
    private final byte[] data;
    private final ErrorCode code;
    private int position;

    SshReader(byte[] data) {
        this(data, ErrorCode.SIGNATURE_FORMAT);
    }

    /** A reader whose refusals carry {@code code} (the private-key parser's own format code). */
    SshReader(byte[] data, ErrorCode code) {
        this.data = data;
        this.code = code;
    }

    int remaining() {
        return data.length - position;
    }

    long readUint32(String what) throws Refusal {
        if (remaining() < 4) {
            throw new Refusal(code, "truncated " + what);
        }
        long value = ((data[position] & 0xFFL) << 24)
                | ((data[position + 1] & 0xFFL) << 16)
                | ((data[position + 2] & 0xFFL) << 8)
                | (data[position + 3] & 0xFFL);
        position += 4;
        return value;
    }

    byte[] readString(String what) throws Refusal {
        long length = readUint32(what + " length");
        if (length > remaining()) {
            throw new Refusal(code, what + " length exceeds the remaining data");
        }
        return readBytes((int) length, what);
    }

    byte[] readBytes(int length, String what) throws Refusal {
        if (length > remaining()) {
            throw new Refusal(code, "truncated " + what);
        }
        byte[] out = Arrays.copyOfRange(data, position, position + length);
        position += length;
        return out;
    }

    void requireEnd(String what) throws Refusal {
        if (remaining() != 0) {
            throw new Refusal(code, what + " has trailing data");
        }
    }
}
