package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Builds logs and heads in memory, including deliberately wrong ones, for tests and fuzzing. */
final class LogBuilder {
    final byte[] logId;
    final List<byte[]> frames = new ArrayList<>();
    final List<byte[]> tips = new ArrayList<>();
    Instant time = Instant.parse("2026-01-01T00:00:00Z");

    LogBuilder(long seed) {
        logId = new byte[Frames.LOG_ID_SIZE];
        new Random(seed).nextBytes(logId);
        tips.add(Frames.genesis(logId));
    }

    LogBuilder add(AuditEvent event) {
        time = time.plusSeconds(1);
        return addRaw(Payloads.typeOf(event).code, Payloads.encode(event, time));
    }

    /** Appends a correctly framed and chained record with any type byte and payload. */
    LogBuilder addRaw(int type, byte[] payload) {
        frames.add(frame(frames.size() + 1, type, payload, tips.get(tips.size() - 1)));
        tips.add(storedHash(frames.get(frames.size() - 1)));
        return this;
    }

    static byte[] frame(long seq, int type, byte[] payload, byte[] previous) {
        ByteBuffer b = ByteBuffer.allocate(Frames.OVERHEAD + payload.length);
        b.putInt(payload.length).putLong(seq).put((byte) type).put(payload);
        MessageDigest md = dev.skillgate.model.Sha256Digest.newMessageDigest();
        b.put(Frames.chain(md, previous, b.array(), 0, Frames.PREFIX_SIZE + payload.length));
        b.putInt(Frames.crc(b.array(), 0, b.position()));
        return b.array();
    }

    static byte[] storedHash(byte[] frame) {
        return Frames.storedHash(frame);
    }

    /** Recomputes the trailing CRC of a frame in place. */
    static void fixCrc(byte[] frame) {
        ByteBuffer.wrap(frame).putInt(frame.length - 4, Frames.crc(frame, 0, frame.length - 4));
    }

    byte[] log() {
        return logUpTo(frames.size());
    }

    byte[] logUpTo(int n) {
        long length = Frames.HEADER_SIZE;
        for (int i = 0; i < n; i++) {
            length += frames.get(i).length;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream((int) length);
        out.writeBytes(Frames.header(logId));
        for (int i = 0; i < n; i++) {
            out.writeBytes(frames.get(i));
        }
        return out.toByteArray();
    }

    byte[] head() {
        return headAt(frames.size());
    }

    byte[] headAt(int n) {
        long length = Frames.HEADER_SIZE;
        for (int i = 0; i < n; i++) {
            length += frames.get(i).length;
        }
        return new Head(logId, n, tips.get(n), length).encode();
    }

    /** Writes {@code audit.log} and {@code audit.head} into {@code dir} (0700/0600). */
    void writeTo(Path dir, byte[] log, byte[] head) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        write(dir.resolve(Engine.LOG), log);
        write(dir.resolve(Engine.HEAD), head);
    }

    static void write(Path p, byte[] bytes) throws IOException {
        Files.write(p, bytes);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
    }
}
