package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads committed records back from {@code audit.log}, each through a fresh verifying scan against a
 * commit point ({@link LogScanner}): a record is returned only when every record before it verified
 * too. Opens its own read-only channel each time and never writes.
 */
final class LogReader {
    private LogReader() {}

    /** Up to {@code limit} verified records of {@code log} with a sequence number above {@code after}. */
    static List<AuditRecord> records(Path log, Head h, long after, int limit) throws IOException {
        List<AuditRecord> out = new ArrayList<>();
        if (h == null || limit == 0 || after >= h.sequence()) {
            return out;
        }
        try (FileChannel ch = FileChannel.open(log, AuditDirectory.READ_NOFOLLOW)) {
            LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                if (seq > after) {
                    out.add(new AuditRecord(
                            seq, decoded.recordedAt(), regression, decoded.event(), Sha256Digest.of(hash)));
                }
                return out.size() < limit;
            });
        }
        return out;
    }

    /**
     * The verified records after {@code after}, with their previous chain hashes, as sinks receive
     * them; empty when the log cannot be read.
     */
    static List<ExportedRecord> exported(Path log, Head h, long after) {
        List<ExportedRecord> out = new ArrayList<>();
        byte[][] previous = {Frames.genesis(h.logId())};
        try (FileChannel ch = FileChannel.open(log, AuditDirectory.READ_NOFOLLOW)) {
            LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                if (seq > after) {
                    out.add(new ExportedRecord(
                            h.logIdHex(),
                            Sha256Digest.of(previous[0]),
                            new AuditRecord(
                                    seq, decoded.recordedAt(), regression, decoded.event(), Sha256Digest.of(hash))));
                }
                previous[0] = hash;
                return true;
            });
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return out;
    }

    /** The chain tip and end offset after record {@code size} (0 ≤ size ≤ h.sequence()). */
    record Position(byte[] tip, long end) {}

    /**
     * Where the committed prefix stood after {@code size} records; empty when that record did not
     * verify or the log could not be read.
     */
    static Optional<Position> positionAfter(Path log, Head h, long size) {
        if (size == h.sequence()) {
            return Optional.of(new Position(h.tip(), h.length()));
        }
        if (size == 0) {
            return Optional.of(new Position(Frames.genesis(h.logId()), Frames.HEADER_SIZE));
        }
        Position[] at = {null};
        try (FileChannel ch = FileChannel.open(log, AuditDirectory.READ_NOFOLLOW)) {
            LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                if (seq == size) {
                    at[0] = new Position(hash, end);
                    return false;
                }
                return true;
            });
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(at[0]);
    }
}
