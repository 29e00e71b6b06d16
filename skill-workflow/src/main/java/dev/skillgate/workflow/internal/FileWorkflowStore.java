package dev.skillgate.workflow.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.workflow.InstanceId;
import dev.skillgate.workflow.OwnerIdentity;
import dev.skillgate.workflow.ProcessIdentity;
import dev.skillgate.workflow.SealedRecord;
import dev.skillgate.workflow.StoredWorkflow;
import dev.skillgate.workflow.TakeoverCondition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowStore;
import dev.skillgate.workflow.WorkflowStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The embedded {@link WorkflowStore}: one directory, per workflow an append-only record file
 * ({@code <id>.records}) and a head file ({@code <id>.head}). Not API; see
 * {@link WorkflowStore#embedded}.
 *
 * <p>Frame: {@code "SGWR" | payload length u32 | CRC-32C of the payload u32 | payload}, payload =
 * {@code sequence u32 | fencing token u64 | schema u16 | flags u8 (1 = ends) | store time i64 (epoch
 * ms) | sealed bytes}. An append writes one frame at the end of the valid frames and forces it to
 * disk before it returns: that is its commit point. A frame cut short or failing its CRC with no valid
 * frame after it is a torn tail: never returned, cut off by the next writer. A bad frame followed by a
 * valid one, a sequence out of order, or a head that does not parse is {@code WORKFLOW_STORE_CORRUPT}.
 * The head (owner, token, lease, created, ended; CRC-32C line) is replaced atomically.
 */
public final class FileWorkflowStore implements WorkflowStore {
    private static final int MAGIC = 0x53475752; // "SGWR"
    private static final int FRAME_HEADER = 12;
    private static final int PAYLOAD_FIXED = 4 + 8 + 2 + 1 + 8;
    private static final int MAX_FRAMES = 4096;
    private static final long MAX_FILE_BYTES = 256L * 1024 * 1024;
    private static final int MAX_HEAD_BYTES = 2048;
    private static final Pattern HEAD_NAME =
            Pattern.compile("([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\\.head");
    private static final Map<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Path directory;
    private final ReentrantLock jvmLock;

    public FileWorkflowStore(Path directory) {
        this.directory =
                Objects.requireNonNull(directory, "directory").toAbsolutePath().normalize();
        this.jvmLock = JVM_LOCKS.computeIfAbsent(this.directory, d -> new ReentrantLock());
    }

    /** The directory. */
    public Path directory() {
        return directory;
    }

    private interface Locked<T> {
        T run() throws IOException, WorkflowStoreException;
    }

    private <T> T locked(Locked<T> body) throws WorkflowStoreException {
        jvmLock.lock();
        try {
            PrivateFiles.ensureDirectory(directory);
            try (FileChannel ch = FileChannel.open(
                            directory.resolve(".lock"),
                            Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                            PrivateFiles.fileAttributes(directory));
                    FileLock lock = ch.lock()) {
                return body.run();
            }
        } catch (IOException e) {
            throw new WorkflowStoreException(
                    ErrorCode.WORKFLOW_STORE_IO,
                    "the workflow store could not be used (" + e.getClass().getSimpleName() + ")",
                    e);
        } finally {
            jvmLock.unlock();
        }
    }

    private Path headFile(WorkflowId id) {
        return directory.resolve(id + ".head");
    }

    private Path recordsFile(WorkflowId id) {
        return directory.resolve(id + ".records");
    }

    // ---- head ------------------------------------------------------------------------------

    private record Head(
            WorkflowId id, OwnerIdentity owner, long token, Instant lease, Instant created, Optional<Instant> ended) {}

    private static byte[] encodeHead(Head h) {
        StringBuilder s = new StringBuilder();
        s.append("skillgate-workflow-head v1\n");
        s.append("id ").append(h.id()).append('\n');
        s.append("token ").append(h.token()).append('\n');
        s.append("instance ").append(h.owner().instance().value()).append('\n');
        s.append("host ").append(h.owner().hostId()).append('\n');
        s.append("pid ")
                .append(h.owner().process().map(p -> Long.toString(p.pid())).orElse("-"))
                .append('\n');
        s.append("start ")
                .append(h.owner().process().map(ProcessIdentity::startToken).orElse("-"))
                .append('\n');
        s.append("lease ").append(h.lease().toEpochMilli()).append('\n');
        s.append("created ").append(h.created().toEpochMilli()).append('\n');
        s.append("ended ")
                .append(h.ended().map(i -> Long.toString(i.toEpochMilli())).orElse("-"))
                .append('\n');
        byte[] body = s.toString().getBytes(StandardCharsets.US_ASCII);
        CRC32C crc = new CRC32C();
        crc.update(body);
        return (s + "crc " + String.format("%08x", crc.getValue()) + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    private Optional<Head> readHead(WorkflowId id) throws IOException, WorkflowStoreException {
        byte[] bytes;
        try {
            bytes = PrivateFiles.readBounded(headFile(id), MAX_HEAD_BYTES);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (bytes == null) {
            throw corrupt(id, "the head file is too long");
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        String[] lines = text.split("\n", -1);
        String[] keys = {"id", "token", "instance", "host", "pid", "start", "lease", "created", "ended", "crc"};
        if (lines.length != keys.length + 2
                || !lines[0].equals("skillgate-workflow-head v1")
                || !lines[lines.length - 1].isEmpty()) {
            throw corrupt(id, "the head file is malformed");
        }
        String[] v = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            String line = lines[i + 1];
            if (!line.startsWith(keys[i] + " ")) {
                throw corrupt(id, "the head file is malformed");
            }
            v[i] = line.substring(keys[i].length() + 1);
        }
        int crcLine = text.lastIndexOf("crc ");
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, crcLine);
        if (!String.format("%08x", crc.getValue()).equals(v[9])) {
            throw corrupt(id, "the head file fails its checksum");
        }
        try {
            if (!v[0].equals(id.toString())) {
                throw corrupt(id, "the head file names another workflow");
            }
            Optional<ProcessIdentity> process =
                    v[4].equals("-") ? Optional.empty() : Optional.of(new ProcessIdentity(Long.parseLong(v[4]), v[5]));
            OwnerIdentity owner = new OwnerIdentity(InstanceId.of(v[2]), v[3], process);
            return Optional.of(new Head(
                    id,
                    owner,
                    Long.parseLong(v[1]),
                    Instant.ofEpochMilli(Long.parseLong(v[6])),
                    Instant.ofEpochMilli(Long.parseLong(v[7])),
                    v[8].equals("-") ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(v[8])))));
        } catch (RuntimeException e) {
            throw corrupt(id, "the head file has an invalid value");
        }
    }

    private void writeHead(Head h) throws IOException {
        PrivateFiles.replaceAtomically(headFile(h.id()), encodeHead(h));
    }

    private static WorkflowStoreException corrupt(WorkflowId id, String why) {
        return new WorkflowStoreException(ErrorCode.WORKFLOW_STORE_CORRUPT, "workflow " + id + ": " + why);
    }

    // ---- frames ----------------------------------------------------------------------------

    private record Frame(SealedRecord record, boolean ends, Instant time) {}

    private record Scan(List<Frame> frames, long validEnd, long fileSize) {}

    private Scan scan(WorkflowId id) throws IOException, WorkflowStoreException {
        Path file = recordsFile(id);
        byte[] bytes;
        try {
            bytes = PrivateFiles.readBounded(file, (int) MAX_FILE_BYTES);
        } catch (NoSuchFileException e) {
            return new Scan(List.of(), 0, 0);
        }
        if (bytes == null) {
            throw corrupt(id, "the record file exceeds " + MAX_FILE_BYTES + " bytes");
        }
        List<Frame> frames = new ArrayList<>();
        int pos = 0;
        while (pos < bytes.length) {
            Optional<Frame> frame = frameAt(id, bytes, pos);
            if (frame.isEmpty()) {
                // A bad frame is a torn tail only if no valid frame follows it.
                int declared = bytes.length - pos >= FRAME_HEADER
                        ? ByteBuffer.wrap(bytes, pos + 4, 4).getInt()
                        : -1;
                long next = declared >= 0 ? (long) pos + FRAME_HEADER + declared : -1;
                if (next > 0
                        && next < bytes.length
                        && frameAt(id, bytes, (int) next).isPresent()) {
                    throw corrupt(id, "a damaged record is followed by valid ones");
                }
                break;
            }
            Frame f = frame.get();
            if (f.record().sequence() != frames.size()) {
                throw corrupt(id, "record " + frames.size() + " is out of order");
            }
            if (!frames.isEmpty() && frames.get(frames.size() - 1).ends()) {
                throw corrupt(id, "a record follows the final one");
            }
            if (frames.size() >= MAX_FRAMES) {
                throw corrupt(id, "more than " + MAX_FRAMES + " records");
            }
            frames.add(f);
            pos += FRAME_HEADER + f.record().sealed().length + PAYLOAD_FIXED;
        }
        return new Scan(frames, pos, bytes.length);
    }

    private static Optional<Frame> frameAt(WorkflowId id, byte[] bytes, int pos) {
        if (bytes.length - pos < FRAME_HEADER + PAYLOAD_FIXED) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, pos, bytes.length - pos);
        if (b.getInt() != MAGIC) {
            return Optional.empty();
        }
        int length = b.getInt();
        int crcValue = b.getInt();
        if (length < PAYLOAD_FIXED + 1 || length > PAYLOAD_FIXED + SealedRecord.MAX_BYTES || length > b.remaining()) {
            return Optional.empty();
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, pos + FRAME_HEADER, length);
        if ((int) crc.getValue() != crcValue) {
            return Optional.empty();
        }
        int sequence = b.getInt();
        long token = b.getLong();
        int schema = b.getShort() & 0xffff;
        int flags = b.get() & 0xff;
        long time = b.getLong();
        byte[] sealed = new byte[length - PAYLOAD_FIXED];
        b.get(sealed);
        try {
            return Optional.of(new Frame(
                    new SealedRecord(id, sequence, schema, token, sealed),
                    (flags & 1) != 0,
                    Instant.ofEpochMilli(time)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static byte[] frame(SealedRecord r, boolean ends, Instant time) {
        byte[] sealed = r.sealed();
        ByteBuffer payload = ByteBuffer.allocate(PAYLOAD_FIXED + sealed.length);
        payload.putInt(r.sequence())
                .putLong(r.fencingToken())
                .putShort((short) r.schemaVersion())
                .put((byte) (ends ? 1 : 0))
                .putLong(time.toEpochMilli())
                .put(sealed);
        CRC32C crc = new CRC32C();
        crc.update(payload.array());
        ByteBuffer out = ByteBuffer.allocate(FRAME_HEADER + payload.capacity());
        out.putInt(MAGIC)
                .putInt(payload.capacity())
                .putInt((int) crc.getValue())
                .put(payload.array());
        return out.array();
    }

    /** Appends one frame after the valid ones (cutting a torn tail first) and forces it to disk. */
    private void writeFrame(WorkflowId id, Scan scan, byte[] frame) throws IOException {
        try (FileChannel ch = FileChannel.open(
                recordsFile(id),
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                PrivateFiles.fileAttributes(directory))) {
            if (ch.size() != scan.validEnd()) {
                ch.truncate(scan.validEnd());
            }
            ch.position(scan.validEnd());
            PrivateFiles.writeFully(ch, ByteBuffer.wrap(frame));
            ch.force(true);
        }
    }

    private StoredWorkflow view(Head h, Scan s) {
        Optional<Instant> ended = h.ended();
        if (ended.isEmpty()
                && !s.frames().isEmpty()
                && s.frames().get(s.frames().size() - 1).ends()) {
            ended = Optional.of(s.frames().get(s.frames().size() - 1).time());
        }
        return new StoredWorkflow(
                h.id(), h.owner(), h.token(), h.lease(), s.frames().size(), h.created(), ended);
    }

    private static Instant plus(Instant now, Duration d) {
        return now.plus(d);
    }

    // ---- SPI -------------------------------------------------------------------------------

    @Override
    public StoredWorkflow create(OwnerIdentity owner, Duration lease, SealedRecord definition)
            throws WorkflowStoreException {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(lease, "lease");
        if (definition.sequence() != 0 || definition.fencingToken() != 1) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "a definition is record 0 under token 1");
        }
        WorkflowId id = definition.workflow();
        return locked(() -> {
            if (readHead(id).isPresent()) {
                throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "workflow " + id + " exists");
            }
            Instant now = now();
            Files.deleteIfExists(recordsFile(id)); // an orphan of a crashed create has no head: never acknowledged
            Scan empty = new Scan(List.of(), 0, 0);
            writeFrame(id, empty, frame(definition, false, now));
            Head h = new Head(id, owner, 1, plus(now, lease), now, Optional.empty());
            writeHead(h);
            return view(h, scan(id));
        });
    }

    @Override
    public StoredWorkflow append(WorkflowId id, long fencingToken, SealedRecord record, boolean ends)
            throws WorkflowStoreException {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(record, "record");
        if (!record.workflow().equals(id) || record.fencingToken() != fencingToken) {
            throw new WorkflowStoreException(ErrorCode.WORKFLOW_INVALID, "the record names another workflow or token");
        }
        return locked(() -> {
            Head h = readHead(id).orElseThrow(() -> notFound(id));
            Scan s = scan(id);
            StoredWorkflow before = view(h, s);
            if (h.token() != fencingToken) {
                throw fenced(id, fencingToken, h.token());
            }
            if (before.ended()) {
                throw new WorkflowStoreException(ErrorCode.WORKFLOW_TERMINAL, "workflow " + id + " has ended");
            }
            if (record.sequence() != s.frames().size()) {
                throw new WorkflowStoreException(
                        ErrorCode.WORKFLOW_INVALID,
                        "record " + record.sequence() + " is not the next ("
                                + s.frames().size() + ")");
            }
            Instant now = now();
            writeFrame(id, s, frame(record, ends, now));
            Head after = h;
            if (ends) {
                after = new Head(id, h.owner(), h.token(), h.lease(), h.created(), Optional.of(now));
                writeHead(after);
            }
            List<Frame> frames = new ArrayList<>(s.frames());
            frames.add(new Frame(record, ends, now));
            return view(after, new Scan(frames, 0, 0));
        });
    }

    @Override
    public StoredWorkflow renew(WorkflowId id, long fencingToken, Duration lease) throws WorkflowStoreException {
        return locked(() -> {
            Head h = readHead(id).orElseThrow(() -> notFound(id));
            if (h.token() != fencingToken) {
                throw fenced(id, fencingToken, h.token());
            }
            Head after = new Head(id, h.owner(), h.token(), plus(now(), lease), h.created(), h.ended());
            writeHead(after);
            return view(after, scan(id));
        });
    }

    @Override
    public StoredWorkflow takeOver(
            WorkflowId id, long expectedToken, OwnerIdentity newOwner, Duration lease, TakeoverCondition condition)
            throws WorkflowStoreException {
        Objects.requireNonNull(newOwner, "newOwner");
        Objects.requireNonNull(condition, "condition");
        return locked(() -> {
            Head h = readHead(id).orElseThrow(() -> notFound(id));
            if (h.token() != expectedToken) {
                throw fenced(id, expectedToken, h.token());
            }
            Instant now = now();
            if (condition == TakeoverCondition.LEASE_EXPIRED && !h.lease().isBefore(now)) {
                throw new WorkflowStoreException(
                        ErrorCode.WORKFLOW_OWNER_ALIVE, "the owner's lease runs until " + h.lease());
            }
            Head after = new Head(id, newOwner, h.token() + 1, plus(now, lease), h.created(), h.ended());
            writeHead(after);
            return view(after, scan(id));
        });
    }

    @Override
    public Optional<StoredWorkflow> find(WorkflowId id) throws WorkflowStoreException {
        return locked(() -> {
            Optional<Head> h = readHead(id);
            if (h.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(view(h.get(), scan(id)));
        });
    }

    @Override
    public List<SealedRecord> records(WorkflowId id) throws WorkflowStoreException {
        return locked(() -> {
            if (readHead(id).isEmpty()) {
                throw notFound(id);
            }
            return scan(id).frames().stream().map(Frame::record).toList();
        });
    }

    @Override
    public List<StoredWorkflow> list(int limit) throws WorkflowStoreException {
        return locked(() -> {
            List<StoredWorkflow> out = new ArrayList<>();
            for (WorkflowId id : ids()) {
                if (out.size() >= limit) {
                    break;
                }
                Optional<Head> h = readHead(id);
                if (h.isPresent()) {
                    out.add(view(h.get(), scan(id)));
                }
            }
            return out;
        });
    }

    private List<WorkflowId> ids() throws IOException {
        List<WorkflowId> ids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path p : entries) {
                var m = HEAD_NAME.matcher(p.getFileName().toString());
                if (m.matches()) {
                    ids.add(WorkflowId.parse(m.group(1)));
                }
            }
        }
        return ids;
    }

    @Override
    public List<StoredWorkflow> purgeEnded(Duration retention) throws WorkflowStoreException {
        Objects.requireNonNull(retention, "retention");
        return locked(() -> {
            Instant cutoff = now().minus(retention);
            List<StoredWorkflow> removed = new ArrayList<>();
            for (WorkflowId id : ids()) {
                Optional<Head> h = readHead(id);
                if (h.isEmpty()) {
                    continue;
                }
                StoredWorkflow w = view(h.get(), scan(id));
                if (w.endedAt().isPresent() && w.endedAt().get().isBefore(cutoff)) {
                    Files.deleteIfExists(recordsFile(id));
                    Files.deleteIfExists(headFile(id));
                    removed.add(w);
                }
            }
            if (!removed.isEmpty()) {
                PrivateFiles.forceDirectory(directory);
            }
            return removed;
        });
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public void close() {
        // nothing is held open between operations
    }

    private static WorkflowStoreException notFound(WorkflowId id) {
        return new WorkflowStoreException(ErrorCode.WORKFLOW_NOT_FOUND, "no workflow " + id);
    }

    private static WorkflowStoreException fenced(WorkflowId id, long presented, long current) {
        return new WorkflowStoreException(
                ErrorCode.WORKFLOW_FENCED,
                "workflow " + id + ": fencing token " + presented + " is stale (current " + current + ")");
    }

    @Override
    public String toString() {
        return "FileWorkflowStore[" + directory + "]";
    }
}
