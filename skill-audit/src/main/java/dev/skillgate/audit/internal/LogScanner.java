package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.tlog.CompactTree;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.MerkleTree;
import dev.skillgate.tlog.Rfc6962;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

/**
 * Verifies the committed prefix of a log against its commit point and classifies whatever lies
 * beyond it. Pure: it reads, it never writes; the caller decides what to do with the result.
 *
 * <p>Inside the committed prefix every frame must have a length in range, a matching CRC32C, the
 * next sequence number, a known type, the recomputed chain hash, and a payload that is canonical
 * JSON matching record schema version 1; the prefix must end exactly at the head's length with the
 * head's sequence number and tip. The first failure stops the scan and is reported with its
 * sequence number.
 *
 * <p>Beside the chain, every verified committed frame (its stored bytes, length field to CRC) is a
 * leaf of an RFC 6962 Merkle tree; a version 2 head's root must equal the recomputed one
 * ({@code AUDIT_TREE_MISMATCH} otherwise, decision 0720).
 */
final class LogScanner {
    private static final int BUFFER_SIZE = 1 << 20;

    /** Called for each verified record, in order; returns false to stop the scan there. */
    interface Visitor {
        boolean record(
                long sequence,
                long endOffset,
                RecordType type,
                Payloads.Decoded decoded,
                byte[] chainHash,
                boolean clockRegression);
    }

    /** What lies beyond the commit point. */
    enum TailKind {
        /** Nothing. */
        NONE,
        /** A partial frame, a frame with a bad CRC, or junk no longer than one frame: a crash artefact. */
        TORN,
        /** Exactly one complete frame that continues the chain: an append whose commit was not confirmed. */
        SINGLE,
        /** More than a crash can leave: several frames, junk after a frame, a foreign frame, or too many bytes. */
        CORRUPT
    }

    /** The tail's classification, with the single frame when there is one. */
    record Tail(
            TailKind kind,
            long bytes,
            String reason,
            Optional<RecordType> type,
            Optional<Payloads.Decoded> decoded,
            byte[] chainHash,
            long frameLength,
            Optional<MerkleHash> leafHash) {
        static Tail none() {
            return new Tail(TailKind.NONE, 0, "", Optional.empty(), Optional.empty(), new byte[0], 0, Optional.empty());
        }
    }

    /** A failure inside the committed prefix (or of the files themselves). */
    record Problem(ErrorCode code, long firstBadSequence, String reason) {}

    /** The outcome of a scan. */
    static final class Result {
        final TrustTable trust = new TrustTable();
        byte[] logId;
        long verifiedSequence;
        long verifiedLength;
        byte[] verifiedTip;
        Instant lastRecordedAt;
        Problem problem;
        boolean stopped;
        Tail tail = Tail.none();
        /** The Merkle tree over the verified committed frames. */
        final CompactTree tree = CompactTree.empty();

        Optional<Problem> problem() {
            return Optional.ofNullable(problem);
        }
    }

    private final Source source;
    private final long size;
    private final byte[] buf;
    private long bufStart;
    private int bufLength;
    private final MessageDigest md = Sha256Digest.newMessageDigest();

    private LogScanner(Source source, long size) {
        this.source = source;
        this.size = size;
        this.buf = new byte[(int) Math.min(BUFFER_SIZE, Math.max(size, Frames.HEADER_SIZE))];
    }

    /**
     * Scans {@code source} against {@code head}.
     *
     * @param visitor called for each verified committed record (may be null)
     */
    static Result scan(Source source, Head head, Visitor visitor) throws IOException {
        return scan(source, head, visitor, null);
    }

    /**
     * Scans as {@link #scan(Source, Head, Visitor)} and adds each verified committed frame's leaf
     * hash to {@code leaves} (may be null).
     */
    static Result scan(Source source, Head head, Visitor visitor, MerkleTree.Builder leaves) throws IOException {
        long size = source.size();
        LogScanner s = new LogScanner(source, size);
        s.leaves = leaves;
        return s.run(head, visitor);
    }

    private MerkleTree.Builder leaves;

    private Result run(Head head, Visitor visitor) throws IOException {
        Result r = new Result();
        if (size < Frames.HEADER_SIZE) {
            r.problem = new Problem(ErrorCode.AUDIT_CORRUPT, -1, "the log is shorter than its header");
            return r;
        }
        int at = ensure(0, Frames.HEADER_SIZE);
        try {
            r.logId = Frames.parseHeader(Arrays.copyOfRange(buf, at, at + Frames.HEADER_SIZE));
        } catch (Frames.FormatException e) {
            r.problem = new Problem(ErrorCode.AUDIT_CORRUPT, -1, e.getMessage());
            return r;
        }
        if (!head.sameLog(r.logId)) {
            r.problem = new Problem(
                    ErrorCode.AUDIT_CORRUPT,
                    -1,
                    "the log's id differs from the commit point's: another log was swapped in");
            return r;
        }
        byte[] prev = Frames.genesis(r.logId);
        long expected = 1;
        long pos = Frames.HEADER_SIZE;
        long committed = head.length();
        r.verifiedTip = prev;
        r.verifiedLength = pos;
        while (pos < committed) {
            long limit = Math.min(committed, size);
            FrameView f = frameAt(pos, limit);
            if (f.fault != null) {
                String reason = f.fault;
                if (f.incomplete) {
                    reason = size < committed
                            ? "the log is shorter than the commit point (" + size + " < " + committed
                                    + " bytes): truncated"
                            : "a frame crosses the commit point";
                }
                r.problem = new Problem(ErrorCode.AUDIT_CORRUPT, expected, reason + " at offset " + pos);
                return r;
            }
            if (f.seq != expected) {
                r.problem = new Problem(
                        ErrorCode.AUDIT_CORRUPT,
                        expected,
                        "sequence break: expected " + expected + ", found " + f.seq + " at offset " + pos);
                return r;
            }
            String bad = checkContent(f, prev);
            if (bad != null) {
                r.problem = new Problem(ErrorCode.AUDIT_CORRUPT, expected, bad + " at seq " + expected);
                return r;
            }
            if (f.type == RecordType.REPAIR && expected != 1) {
                r.problem = new Problem(
                        ErrorCode.AUDIT_CORRUPT, expected, "a repair record appears after the start of a log");
                return r;
            }
            boolean regression =
                    r.lastRecordedAt != null && f.decoded.recordedAt().isBefore(r.lastRecordedAt);
            apply(r.trust, expected, f.decoded);
            r.tree.appendData(buf, f.offset, f.total);
            if (leaves != null) {
                leaves.addData(buf, f.offset, f.total);
            }
            if (visitor != null && !visitor.record(expected, pos + f.total, f.type, f.decoded, f.hash, regression)) {
                r.stopped = true;
                return r;
            }
            r.lastRecordedAt = f.decoded.recordedAt();
            prev = f.hash;
            pos += f.total;
            r.verifiedSequence = expected;
            r.verifiedLength = pos;
            r.verifiedTip = prev;
            expected++;
        }
        if (r.verifiedSequence != head.sequence() || !head.tipEquals(prev)) {
            r.problem = new Problem(
                    ErrorCode.AUDIT_CORRUPT,
                    -1,
                    r.verifiedSequence != head.sequence()
                            ? "the commit point names seq " + head.sequence() + " but the log holds "
                                    + r.verifiedSequence + " records up to it"
                            : "the chain does not end at the commit point's tip: records were rewritten");
            return r;
        }
        if (head.hasRoot() && !r.tree.root().matches(head.root())) {
            r.problem = new Problem(
                    ErrorCode.AUDIT_TREE_MISMATCH,
                    -1,
                    "the commit point's Merkle root differs from the root of the committed records");
            return r;
        }
        r.tail = classifyTail(head, prev);
        return r;
    }

    static void apply(TrustTable trust, long seq, Payloads.Decoded d) {
        if (d.event() instanceof AuditEvent.Approved a) {
            trust.approve(a.scope(), d.scopeId(), seq, d.recordedAt());
        } else if (d.event() instanceof AuditEvent.Revoked v) {
            trust.revoke(v.scope(), d.scopeId(), seq, d.recordedAt());
        }
    }

    private Tail classifyTail(Head head, byte[] tip) throws IOException {
        long start = head.length();
        long tailBytes = size - start;
        if (tailBytes == 0) {
            return Tail.none();
        }
        FrameView f = frameAt(start, size);
        if (f.fault == null) {
            if (start + f.total == size) {
                String bad =
                        f.seq != head.sequence() + 1 ? "its sequence number does not follow" : checkContent(f, tip);
                if (bad == null && f.type == RecordType.REPAIR) {
                    bad = "it is a repair record";
                }
                if (bad != null) {
                    return corrupt(
                            tailBytes, "a complete frame beyond the commit point is not the next record: " + bad);
                }
                return new Tail(
                        TailKind.SINGLE,
                        tailBytes,
                        "one complete, unconfirmed record (seq " + f.seq + ") beyond the commit point",
                        Optional.of(f.type),
                        Optional.of(f.decoded),
                        f.hash,
                        f.total,
                        Optional.of(Rfc6962.leafHash(buf, f.offset, f.total)));
            }
            int frames = 1;
            long pos = start + f.total;
            while (pos < size && frames < 1000) {
                FrameView next = frameAt(pos, size);
                if (next.fault != null) {
                    break;
                }
                frames++;
                pos += next.total;
            }
            return corrupt(
                    tailBytes,
                    frames > 1
                            ? frames + " complete frames beyond the commit point (the commit point was rolled back)"
                            : "bytes follow a complete frame beyond the commit point");
        }
        if (tailBytes > Frames.MAX_FRAME) {
            return corrupt(tailBytes, tailBytes + " unconfirmed bytes beyond the commit point: more than one frame");
        }
        return new Tail(
                TailKind.TORN,
                tailBytes,
                tailBytes + " unconfirmed bytes beyond the commit point (" + f.fault + ")",
                Optional.empty(),
                Optional.empty(),
                new byte[0],
                0,
                Optional.empty());
    }

    private static Tail corrupt(long bytes, String reason) {
        return new Tail(
                TailKind.CORRUPT, bytes, reason, Optional.empty(), Optional.empty(), new byte[0], 0, Optional.empty());
    }

    /** Checks type, chain and payload; returns null when good, else the reason. Fills the view. */
    private String checkContent(FrameView f, byte[] prev) {
        Optional<RecordType> type = RecordType.of(f.typeByte);
        if (type.isEmpty()) {
            return "unknown record type " + f.typeByte;
        }
        f.type = type.get();
        byte[] hash = Frames.chain(md, prev, buf, f.offset, Frames.PREFIX_SIZE + f.length);
        if (!Arrays.equals(hash, 0, Frames.HASH_SIZE, buf, f.hashOffset, f.hashOffset + Frames.HASH_SIZE)) {
            return "chain hash mismatch";
        }
        f.hash = hash;
        try {
            f.decoded = Payloads.decode(f.type, buf, f.offset + Frames.PREFIX_SIZE, f.length, md);
        } catch (Frames.FormatException e) {
            return "invalid payload (" + e.getMessage() + ")";
        }
        return null;
    }

    /** A frame located in the buffer. */
    private static final class FrameView {
        String fault;
        boolean incomplete;
        int offset;
        int length;
        long seq;
        int typeByte;
        int total;
        int hashOffset;
        RecordType type;
        byte[] hash;
        Payloads.Decoded decoded;

        static FrameView fault(String why, boolean incomplete) {
            FrameView f = new FrameView();
            f.fault = why;
            f.incomplete = incomplete;
            return f;
        }
    }

    private FrameView frameAt(long pos, long limit) throws IOException {
        if (limit - pos < Frames.PREFIX_SIZE) {
            return FrameView.fault("partial frame header", true);
        }
        int at = ensure(pos, Frames.PREFIX_SIZE);
        int length = ByteBuffer.wrap(buf, at, 4).getInt();
        if (length <= 0 || length > Frames.MAX_PAYLOAD) {
            return FrameView.fault("length field out of range", false);
        }
        int total = Frames.OVERHEAD + length;
        if (limit - pos < total) {
            return FrameView.fault("partial frame", true);
        }
        at = ensure(pos, total);
        int crcAt = at + total - 4;
        if (Frames.crc(buf, at, total - 4) != ByteBuffer.wrap(buf, crcAt, 4).getInt()) {
            return FrameView.fault("CRC mismatch", false);
        }
        FrameView f = new FrameView();
        f.offset = at;
        f.length = length;
        f.seq = ByteBuffer.wrap(buf, at + 4, 8).getLong();
        f.typeByte = buf[at + 12] & 0xff;
        f.total = total;
        f.hashOffset = at + Frames.PREFIX_SIZE + length;
        return f;
    }

    /** Makes {@code [pos, pos + n)} available in the buffer and returns its index there. */
    private int ensure(long pos, int n) throws IOException {
        if (pos >= bufStart && pos + n <= bufStart + bufLength) {
            return (int) (pos - bufStart);
        }
        bufStart = pos;
        bufLength = 0;
        ByteBuffer dst = ByteBuffer.wrap(buf);
        while (bufLength < n) {
            int read = source.read(dst, pos + bufLength);
            if (read < 0) {
                throw new IOException("the log ended while it was being read");
            }
            bufLength += read;
        }
        return 0;
    }
}
