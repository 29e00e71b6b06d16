package dev.skillgate.signature.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Builds SSH wire encoding (RFC 4251 §5) for the bytes Skillgate itself constructs. */
final class SshWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

    SshWriter raw(byte[] bytes) {
        out.writeBytes(bytes);
        return this;
    }

    SshWriter uint32(long value) {
        out.write((int) (value >>> 24) & 0xFF);
        out.write((int) (value >>> 16) & 0xFF);
        out.write((int) (value >>> 8) & 0xFF);
        out.write((int) value & 0xFF);
        return this;
    }

    SshWriter string(byte[] bytes) {
        uint32(bytes.length);
        out.writeBytes(bytes);
        return this;
    }

    SshWriter string(String ascii) {
        return string(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }
}
