package dev.skillgate.workflow.internal;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.workflow.EndReason;
import dev.skillgate.workflow.OperatorDecision;
import dev.skillgate.workflow.WorkflowDefinition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The plaintext of a record, schema version 1: a type byte, then the record's fields (strings as
 * u16 length + strict UTF-8, byte strings as u32 length + bytes, enums by name). Not API. Decoding
 * refuses anything it does not know exactly (a type, an enum name, a trailing byte) as
 * {@code WORKFLOW_SCHEMA_UNKNOWN}: an authenticated record this build cannot read is never guessed at.
 */
public final class RecordCodec {
    private static final int DEFINED = 1;
    private static final int STARTED = 2;
    private static final int SETTLED = 3;
    private static final int DECIDED = 4;
    private static final int ENDED = 5;

    private RecordCodec() {}

    /** Encodes {@code record}. */
    public static byte[] encode(WorkflowRecord record) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
            DataOutputStream out = new DataOutputStream(bytes);
            if (record instanceof WorkflowRecord.Defined d) {
                WorkflowDefinition def = d.definition();
                out.writeByte(DEFINED);
                out.writeLong(def.workflow().value().getMostSignificantBits());
                out.writeLong(def.workflow().value().getLeastSignificantBits());
                text(out, def.run().value());
                text(out, def.agent().value());
                text(out, def.workspaceDigest().toString());
                text(out, def.workspacePath());
                out.writeByte(def.steps().size());
                for (WorkflowDefinition.Step s : def.steps()) {
                    text(out, s.skill().value());
                    text(out, s.revision().toString());
                    text(out, s.invocationDigest().map(Sha256Digest::toString).orElse(""));
                }
                text(out, def.planDigest().toString());
            } else if (record instanceof WorkflowRecord.StepStarted s) {
                out.writeByte(STARTED);
                out.writeByte(s.step());
                blob(out, s.input());
                text(out, s.inputDigest().toString());
            } else if (record instanceof WorkflowRecord.StepSettled s) {
                out.writeByte(SETTLED);
                out.writeByte(s.step());
                text(out, s.status().name());
                text(out, s.cleanup().name());
                out.writeByte(s.codes().size());
                for (ErrorCode c : s.codes()) {
                    text(out, c.name());
                }
                out.writeBoolean(s.checkedOutput().isPresent());
                if (s.checkedOutput().isPresent()) {
                    blob(out, s.checkedOutput().get());
                }
            } else if (record instanceof WorkflowRecord.StepDecided s) {
                out.writeByte(DECIDED);
                out.writeByte(s.step());
                text(out, s.decision().name());
                text(out, s.note());
            } else if (record instanceof WorkflowRecord.Ended e) {
                out.writeByte(ENDED);
                text(out, e.reason().name());
            } else {
                throw new IllegalArgumentException("unknown record type");
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes a plaintext; anything unknown or malformed is {@code WORKFLOW_SCHEMA_UNKNOWN}. */
    public static WorkflowRecord decode(byte[] plaintext) throws Envelope.Refused {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(plaintext));
        try {
            int type = in.readUnsignedByte();
            WorkflowRecord r = switch (type) {
                case DEFINED -> {
                    WorkflowId id = new WorkflowId(new UUID(in.readLong(), in.readLong()));
                    RunId run = RunId.of(text(in));
                    AgentId agent = AgentId.of(text(in));
                    Sha256Digest ws = Sha256Digest.parse(text(in));
                    String path = text(in);
                    int n = in.readUnsignedByte();
                    List<WorkflowDefinition.Step> steps = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        SkillName skill = SkillName.of(text(in));
                        Revision revision = Revision.parse(text(in));
                        String digest = text(in);
                        steps.add(new WorkflowDefinition.Step(
                                skill,
                                revision,
                                digest.isEmpty() ? Optional.empty() : Optional.of(Sha256Digest.parse(digest))));
                    }
                    Sha256Digest plan = Sha256Digest.parse(text(in));
                    yield new WorkflowRecord.Defined(new WorkflowDefinition(id, run, agent, ws, path, steps, plan));
                }
                case STARTED -> {
                    int step = in.readUnsignedByte();
                    byte[] input = blob(in, WorkflowRecord.MAX_INPUT_BYTES);
                    yield new WorkflowRecord.StepStarted(step, input, Sha256Digest.parse(text(in)));
                }
                case SETTLED -> {
                    int step = in.readUnsignedByte();
                    ExecutionStatus status = ExecutionStatus.valueOf(text(in));
                    CleanupStatus cleanup = CleanupStatus.valueOf(text(in));
                    int n = in.readUnsignedByte();
                    List<ErrorCode> codes = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        codes.add(ErrorCode.valueOf(text(in)));
                    }
                    Optional<byte[]> output = in.readBoolean()
                            ? Optional.of(blob(in, WorkflowRecord.MAX_OUTPUT_BYTES))
                            : Optional.empty();
                    yield new WorkflowRecord.StepSettled(step, status, cleanup, codes, output);
                }
                case DECIDED ->
                    new WorkflowRecord.StepDecided(in.readUnsignedByte(), OperatorDecision.valueOf(text(in)), text(in));
                case ENDED -> new WorkflowRecord.Ended(EndReason.valueOf(text(in)));
                default -> throw new IllegalArgumentException("unknown record type " + type);
            };
            if (in.available() != 0) {
                throw new IllegalArgumentException("trailing bytes");
            }
            return r;
        } catch (IOException | RuntimeException e) {
            throw new Envelope.Refused(
                    ErrorCode.WORKFLOW_SCHEMA_UNKNOWN,
                    "the record's content is not schema version 1 as this build knows it");
        }
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 0xffff) {
            throw new IllegalArgumentException("text too long");
        }
        out.writeShort(b.length);
        out.write(b);
    }

    private static String text(DataInputStream in) throws IOException {
        int n = in.readUnsignedShort();
        byte[] b = new byte[n];
        in.readFully(b);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(b))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IOException("not UTF-8");
        }
    }

    private static void blob(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] blob(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new EOFException("blob length out of range");
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
