package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/**
 * An unencrypted OpenSSH {@code ssh-ed25519} private key, parsed strictly from the {@code
 * openssh-key-v1} file {@code ssh-keygen -t ed25519 -N ''} writes (OpenSSH {@code PROTOCOL.key}).
 *
 * <p>Accepted, and nothing else: the armor {@code -----BEGIN OPENSSH PRIVATE KEY-----}, canonical
 * padded base64 in lines of 1–{@value #MAX_BASE64_LINE} characters (LF or CRLF), the end line and at
 * most one line end; then the blob {@code "openssh-key-v1\0"}, cipher {@code none}, KDF {@code none}
 * with empty options, exactly one key, an {@code ssh-ed25519} public key, and a private section
 * whose length is a multiple of 8, whose two check integers are equal, whose key type and public
 * key repeat the public blob's, whose 64-byte private key is the 32-byte seed followed by that
 * public key and derives it, followed by a comment and the padding bytes {@code 1, 2, 3, …} (fewer
 * than 8). Every length is checked against the remaining bytes before anything is copied.
 *
 * <p>Refusals, checked in this order: another armor or a public key line ({@code
 * SIGNATURE_KEY_FORMAT}; a PEM {@code RSA}/{@code DSA}/{@code EC} key is {@code
 * SIGNATURE_ALGORITHM}); a public key type other than {@code ssh-ed25519} ({@code
 * SIGNATURE_ALGORITHM}, before the encryption check, since decrypting would not help); a cipher
 * other than {@code none} ({@code SIGNATURE_KEY_ENCRYPTED}); any other structural fault ({@code
 * SIGNATURE_KEY_FORMAT}).
 *
 * <p>The intermediate copies of secret bytes made here are overwritten with zeros before parsing
 * returns, and the seed is overwritten by {@link #close()}. Not covered: the caller's file bytes
 * (the caller wipes them), and the copy of the seed inside Bouncy Castle's {@link
 * Ed25519PrivateKeyParameters} made for each signature, which has no wipe method and is left to the
 * garbage collector. Not thread-safe for use after {@link #close()}; {@code sign} and {@code close}
 * are synchronised.
 */
public final class OpenSshPrivateKey implements AutoCloseable {
    static final String BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----";
    static final String END = "-----END OPENSSH PRIVATE KEY-----";

    /** The longest base64 line accepted ({@code ssh-keygen} writes 70; PEM allows 76). */
    static final int MAX_BASE64_LINE = 76;

    static final byte[] MAGIC = "openssh-key-v1\0".getBytes(StandardCharsets.US_ASCII);

    /** The block size of cipher {@code none}: the private section is padded to a multiple of it. */
    static final int BLOCK_SIZE = 8;

    private static final int SEED_LENGTH = 32;
    private static final byte[] NONE = "none".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ED25519 = Ed25519PublicKey.TYPE.getBytes(StandardCharsets.US_ASCII);

    private final Ed25519PublicKey publicKey;
    private final byte[] seed;
    private boolean closed;

    private OpenSshPrivateKey(Ed25519PublicKey publicKey, byte[] seed) {
        this.publicKey = publicKey;
        this.seed = seed;
    }

    /**
     * Parses the bytes of a private key file. {@code file} is not modified; the caller wipes it.
     *
     * @throws Refusal {@code SIGNATURE_KEY_FORMAT}, {@code SIGNATURE_ALGORITHM} or {@code
     *     SIGNATURE_KEY_ENCRYPTED}
     */
    public static OpenSshPrivateKey parse(byte[] file) throws Refusal {
        byte[] blob = dearmor(file);
        try {
            return parseBlob(blob);
        } finally {
            Arrays.fill(blob, (byte) 0);
        }
    }

    /** The public half. */
    public Ed25519PublicKey publicKey() {
        return publicKey;
    }

    /**
     * A raw 64-byte Ed25519 signature over {@code message} (RFC 8032, deterministic).
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public synchronized byte[] sign(byte[] message) {
        if (closed) {
            throw new IllegalStateException("the private key was closed");
        }
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, new Ed25519PrivateKeyParameters(seed, 0));
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    /** Overwrites the seed with zeros; idempotent. */
    @Override
    public synchronized void close() {
        Arrays.fill(seed, (byte) 0);
        closed = true;
    }

    @Override
    public String toString() {
        return "OpenSshPrivateKey[" + publicKey + "]";
    }

    private static byte[] dearmor(byte[] file) throws Refusal {
        int lineEnd = lineEnd(file, 0);
        if (!isLine(file, 0, lineEnd, BEGIN)) {
            throw notOpenSsh(asciiLine(file, 0, lineEnd));
        }
        int position = next(file, lineEnd);
        byte[] base64 = new byte[file.length];
        int length = 0;
        try {
            while (true) {
                if (position >= file.length) {
                    throw format("the key file has no " + END + " line");
                }
                lineEnd = lineEnd(file, position);
                if (isLine(file, position, lineEnd, END)) {
                    position = next(file, lineEnd);
                    break;
                }
                int contentEnd = contentEnd(file, position, lineEnd);
                if (contentEnd == position || contentEnd - position > MAX_BASE64_LINE) {
                    throw format("a base64 line of the key is empty or longer than " + MAX_BASE64_LINE + " characters");
                }
                for (int i = position; i < contentEnd; i++) {
                    if (!isBase64(file[i])) {
                        throw format("the key contains a character outside base64");
                    }
                    base64[length++] = file[i];
                }
                position = next(file, lineEnd);
            }
            if (position != file.length) {
                throw format("the key file has data after the " + END + " line");
            }
            if (length == 0) {
                throw format("the key file holds no key");
            }
            return decodeCanonical(Arrays.copyOf(base64, length));
        } finally {
            Arrays.fill(base64, (byte) 0);
        }
    }

    private static byte[] decodeCanonical(byte[] base64) throws Refusal {
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            Arrays.fill(base64, (byte) 0);
            throw format("the key is not valid base64");
        }
        byte[] again = Base64.getEncoder().encode(decoded);
        boolean canonical = MessageDigest.isEqual(again, base64);
        Arrays.fill(again, (byte) 0);
        Arrays.fill(base64, (byte) 0);
        if (!canonical) {
            Arrays.fill(decoded, (byte) 0);
            throw format("the key is not canonical padded base64");
        }
        return decoded;
    }

    /** Parses a decoded {@code openssh-key-v1} blob; {@code blob} is not modified. */
    static OpenSshPrivateKey parseBlob(byte[] blob) throws Refusal {
        SshReader reader = new SshReader(blob, ErrorCode.SIGNATURE_KEY_FORMAT);
        if (!Arrays.equals(reader.readBytes(MAGIC.length, "magic"), MAGIC)) {
            throw format("the key does not start with openssh-key-v1");
        }
        byte[] cipher = reader.readString("cipher name");
        byte[] kdf = reader.readString("KDF name");
        byte[] kdfOptions = reader.readString("KDF options");
        long keys = reader.readUint32("number of keys");
        if (keys != 1) {
            throw format("the key file holds " + keys + " keys; exactly one is accepted");
        }
        byte[] publicBlob = reader.readString("public key");
        Ed25519PublicKey publicKey = publicKey(publicBlob);
        if (!Arrays.equals(cipher, NONE)) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_KEY_ENCRYPTED,
                    "the key is encrypted with a passphrase; Skillgate reads unencrypted keys only"
                            + " (sign with ssh-keygen -Y sign instead, or use a separate unencrypted signing key)");
        }
        if (!Arrays.equals(kdf, NONE) || kdfOptions.length != 0) {
            throw format("an unencrypted key has KDF none and no KDF options");
        }
        byte[] section = reader.readString("private section");
        try {
            reader.requireEnd("the key");
            return privateSection(section, publicKey);
        } finally {
            Arrays.fill(section, (byte) 0);
        }
    }

    private static Ed25519PublicKey publicKey(byte[] publicBlob) throws Refusal {
        SshReader reader = new SshReader(publicBlob, ErrorCode.SIGNATURE_KEY_FORMAT);
        byte[] type = reader.readString("public key type");
        if (!Arrays.equals(type, ED25519)) {
            String name = new String(type, StandardCharsets.US_ASCII);
            throw new Refusal(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    Ed25519PublicKey.isKnownType(name)
                            ? "the key is " + name + "; only ssh-ed25519 keys sign skills"
                            : "the key type is not ssh-ed25519; only ssh-ed25519 keys sign skills");
        }
        try {
            return Ed25519PublicKey.fromBlob(publicBlob);
        } catch (Refusal e) {
            throw format("the public key is malformed: " + e.getMessage());
        }
    }

    private static OpenSshPrivateKey privateSection(byte[] section, Ed25519PublicKey publicKey) throws Refusal {
        if (section.length == 0 || section.length % BLOCK_SIZE != 0) {
            throw format("the private section is not a whole number of " + BLOCK_SIZE + "-byte blocks");
        }
        SshReader reader = new SshReader(section, ErrorCode.SIGNATURE_KEY_FORMAT);
        long check1 = reader.readUint32("check integer");
        long check2 = reader.readUint32("check integer");
        if (check1 != check2) {
            throw format("the private section's two check integers differ");
        }
        if (!Arrays.equals(reader.readString("private key type"), ED25519)) {
            throw format("the private section's key type is not the public key's ssh-ed25519");
        }
        byte[] embeddedPublic = reader.readString("Ed25519 public key");
        byte[] expectedPublic = publicKey.blob();
        byte[] publicPoint = Arrays.copyOfRange(expectedPublic, expectedPublic.length - 32, expectedPublic.length);
        if (!Arrays.equals(embeddedPublic, publicPoint)) {
            throw format("the private section's public key differs from the file's public key");
        }
        byte[] privateKey = reader.readString("Ed25519 private key");
        byte[] seed = null;
        try {
            if (privateKey.length != SEED_LENGTH + 32
                    || !Arrays.equals(privateKey, SEED_LENGTH, privateKey.length, publicPoint, 0, 32)) {
                throw format("the Ed25519 private key is not 64 bytes ending in its public key");
            }
            seed = Arrays.copyOf(privateKey, SEED_LENGTH);
            byte[] derived =
                    new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
            if (!Arrays.equals(derived, publicPoint)) {
                throw format("the private key does not derive its public key");
            }
            reader.readString("comment");
            int padding = reader.remaining();
            if (padding >= BLOCK_SIZE) {
                throw format("the private section has data after the key and comment");
            }
            byte[] pad = reader.readBytes(padding, "padding");
            for (int i = 0; i < pad.length; i++) {
                if (pad[i] != i + 1) {
                    throw format("the private section's padding is not 1, 2, 3, ...");
                }
            }
            OpenSshPrivateKey key = new OpenSshPrivateKey(publicKey, seed);
            seed = null;
            return key;
        } finally {
            Arrays.fill(privateKey, (byte) 0);
            if (seed != null) {
                Arrays.fill(seed, (byte) 0);
            }
        }
    }

    private static Refusal notOpenSsh(String firstLine) {
        String line = firstLine.strip();
        if (line.startsWith("-----BEGIN RSA PRIVATE KEY-----")
                || line.startsWith("-----BEGIN DSA PRIVATE KEY-----")
                || line.startsWith("-----BEGIN EC PRIVATE KEY-----")) {
            return new Refusal(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    "the key is a PEM RSA, DSA or ECDSA key; only ssh-ed25519 keys sign skills");
        }
        if (line.startsWith("ssh-") || line.startsWith("ecdsa-") || line.startsWith("sk-")) {
            return format("the file is a public key; pass the private key file (the one without .pub)");
        }
        if (line.startsWith("-----BEGIN ")) {
            return format("the key is not in the OpenSSH format (" + BEGIN + ") that ssh-keygen writes");
        }
        return format("the file does not start with " + BEGIN);
    }

    private static Refusal format(String message) {
        return new Refusal(ErrorCode.SIGNATURE_KEY_FORMAT, message);
    }

    private static int lineEnd(byte[] data, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == '\n') {
                return i;
            }
        }
        return data.length;
    }

    /** The end of a line's content: before one CR that ends it (CRLF files are accepted). */
    private static int contentEnd(byte[] data, int from, int lineEnd) {
        return lineEnd > from && data[lineEnd - 1] == '\r' ? lineEnd - 1 : lineEnd;
    }

    /** Whether the line from {@code from} to {@code lineEnd} is exactly {@code text} (plus one CR). */
    private static boolean isLine(byte[] data, int from, int lineEnd, String text) {
        byte[] expected = text.getBytes(StandardCharsets.US_ASCII);
        int end = contentEnd(data, from, lineEnd);
        return end - from == expected.length && Arrays.equals(data, from, end, expected, 0, expected.length);
    }

    private static int next(byte[] data, int lineEnd) {
        return lineEnd < data.length ? lineEnd + 1 : lineEnd;
    }

    /** The first line for recognising its kind only: non-ASCII, control and long text is dropped. */
    private static String asciiLine(byte[] data, int from, int to) {
        int end = Math.min(to, from + 64);
        StringBuilder line = new StringBuilder(end - from);
        for (int i = from; i < end; i++) {
            byte b = data[i];
            line.append(b >= 0x20 && b < 0x7F ? (char) b : '?');
        }
        return line.toString();
    }

    private static boolean isBase64(byte b) {
        return (b >= 'A' && b <= 'Z')
                || (b >= 'a' && b <= 'z')
                || (b >= '0' && b <= '9')
                || b == '+'
                || b == '/'
                || b == '=';
    }
}
