package dev.skillgate.audit;

import dev.skillgate.audit.internal.Ed25519;
import dev.skillgate.audit.internal.Instants;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A signed statement of an audit log's commit point, to be held outside the log's directory.
 *
 * <p>Text form ({@link #encode()}, {@code docs/audit.md}), ASCII, every line ending in {@code \n}:
 *
 * <pre>
 * skillgate-audit-checkpoint/v1
 * log &lt;32 hex: log id&gt;
 * size &lt;committed record count&gt;
 * length &lt;committed byte length of audit.log&gt;
 * tip &lt;64 hex: chain hash after record 'size'&gt;
 * time &lt;UTC instant, ISO-8601&gt;
 * key &lt;base64 Ed25519 public key&gt;
 * signature &lt;base64 Ed25519 signature over every line above, newlines included&gt;
 * </pre>
 *
 * <p>A checkpoint lets a holder detect that the log was truncated, rolled back before it, rewritten
 * or replaced ({@link AuditLog#verify}). It cannot detect a rollback to any state at or after it,
 * and its signature says nothing unless the verifier knows which key to expect.
 *
 * @param logId the log id (32 lowercase hex)
 * @param size the number of committed records
 * @param length the committed byte length of the log file
 * @param tip the chain hash after record {@code size} (a chain value, printed as a digest)
 * @param time when the checkpoint was made (local clock)
 * @param key the signing key
 * @param signature base64 of the 64-byte Ed25519 signature
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Checkpoint(
        String logId,
        long size,
        long length,
        Sha256Digest tip,
        Instant time,
        CheckpointPublicKey key,
        String signature) {
    static final String FIRST_LINE = "skillgate-audit-checkpoint/v1";
    /** Longest checkpoint text accepted. */
    public static final int MAX_SIZE = 1024;

    public Checkpoint {
        Objects.requireNonNull(logId, "logId");
        Objects.requireNonNull(tip, "tip");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(signature, "signature");
        if (!logId.matches("[0-9a-f]{32}")) {
            throw format("the log id is 32 lowercase hex digits");
        }
        if (size < 0 || size > (1L << 53) - 1 || length < 32 || length > (1L << 53) - 1) {
            throw format("size or length is out of range");
        }
        Instants.check(time);
        byte[] sig;
        try {
            sig = Base64.getDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            throw format("the signature is not base64");
        }
        if (sig.length != 64 || !Base64.getEncoder().encodeToString(sig).equals(signature)) {
            throw format("the signature is 64 bytes in canonical base64");
        }
    }

    /** Signs a checkpoint of the given commit point with {@code key}. */
    public static Checkpoint sign(
            String logId, long size, long length, Sha256Digest tip, Instant time, CheckpointKey key) {
        Objects.requireNonNull(key, "key");
        String body = body(logId, size, length, tip, time, key.publicKey());
        byte[] sig = key.sign(body.getBytes(StandardCharsets.US_ASCII));
        return new Checkpoint(
                logId,
                size,
                length,
                tip,
                time,
                key.publicKey(),
                Base64.getEncoder().encodeToString(sig));
    }

    private static String body(
            String logId, long size, long length, Sha256Digest tip, Instant time, CheckpointPublicKey key) {
        return FIRST_LINE + "\nlog " + logId + "\nsize " + size + "\nlength " + length + "\ntip " + tip.hex()
                + "\ntime " + DateTimeFormatter.ISO_INSTANT.format(time) + "\nkey " + key.base64() + "\n";
    }

    /** Whether the signature verifies with {@link #key()}. Says nothing about whose key that is. */
    public boolean signatureValid() {
        byte[] message = body(logId, size, length, tip, time, key).getBytes(StandardCharsets.US_ASCII);
        return Ed25519.verify(key.bytes(), message, Base64.getDecoder().decode(signature));
    }

    /** The text form. */
    public byte[] encode() {
        return (body(logId, size, length, tip, time, key) + "signature " + signature + "\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses the text form strictly (at most {@link #MAX_SIZE} bytes). Does not verify the signature.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) when malformed
     */
    public static Checkpoint parse(byte[] text) {
        Objects.requireNonNull(text, "text");
        if (text.length > MAX_SIZE) {
            throw format("a checkpoint is at most " + MAX_SIZE + " bytes");
        }
        for (byte b : text) {
            if (b != '\n' && (b < 0x20 || b > 0x7e)) {
                throw format("a checkpoint is printable ASCII");
            }
        }
        String s = new String(text, StandardCharsets.US_ASCII);
        if (!s.endsWith("\n")) {
            throw format("a checkpoint ends with a newline");
        }
        String[] lines = s.substring(0, s.length() - 1).split("\n", -1);
        if (lines.length != 8 || !lines[0].equals(FIRST_LINE)) {
            throw format("not a version 1 checkpoint");
        }
        String logId = field(lines[1], "log");
        long size = number(field(lines[2], "size"));
        long length = number(field(lines[3], "length"));
        String tipHex = field(lines[4], "tip");
        Instant time;
        try {
            time = Instant.parse(field(lines[5], "time"));
        } catch (DateTimeParseException e) {
            throw format("the time is not an ISO-8601 instant");
        }
        Sha256Digest tip;
        try {
            tip = new Sha256Digest(tipHex);
        } catch (InvalidValueException e) {
            throw format("the tip is not 64 lowercase hex digits");
        }
        Checkpoint cp = new Checkpoint(
                logId,
                size,
                length,
                tip,
                time,
                new CheckpointPublicKey(field(lines[6], "key")),
                field(lines[7], "signature"));
        if (!java.util.Arrays.equals(cp.encode(), text)) {
            throw format("the checkpoint is not in canonical form");
        }
        return cp;
    }

    private static String field(String line, String name) {
        if (!line.startsWith(name + " ")) {
            throw format("expected the line '" + name + "'");
        }
        return line.substring(name.length() + 1);
    }

    private static long number(String s) {
        if (!s.matches("0|[1-9][0-9]{0,15}")) {
            throw format("a number is malformed");
        }
        return Long.parseLong(s);
    }

    private static InvalidValueException format(String message) {
        return new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, message);
    }
}
