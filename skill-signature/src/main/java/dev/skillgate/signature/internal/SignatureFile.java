package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import dev.skillgate.signature.SignatureStatement;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A parsed bundle signature file: the signed statement followed by one armored SSHSIG signature
 * (OpenSSH {@code PROTOCOL.sshsig}), parsed strictly and without trusting anything yet.
 *
 * <p>Parsing checks, in this order, and stops at the first failure: the size bound; the statement
 * layout ({@code SIGNATURE_FORMAT}); the armor (exactly as {@code ssh-keygen} writes it: canonical
 * base64 in 70-character LF-terminated lines, the end line, one LF, nothing more); the SSHSIG blob structure (magic, version 1, five strings, no trailing data); the key
 * and signature types ({@code SIGNATURE_ALGORITHM} unless {@code ssh-ed25519}); key and signature
 * sizes; the hash algorithm ({@code sha256} or {@code sha512}, else {@code SIGNATURE_ALGORITHM}); an
 * empty reserved field; the namespace ({@code SIGNATURE_NAMESPACE} unless {@code skillgate}).
 * Whether the signature verifies, and whether the key is allowed, are decided later.
 */
public final class SignatureFile {
    /** The SSHSIG magic preamble. */
    static final byte[] MAGIC = "SSHSIG".getBytes(StandardCharsets.US_ASCII);

    /** The only SSHSIG version accepted. */
    static final long VERSION = 1;

    /** The SSHSIG namespace every Skillgate signature uses. */
    public static final String NAMESPACE = "skillgate";

    static final String BEGIN = "-----BEGIN SSH SIGNATURE-----";
    static final String END = "-----END SSH SIGNATURE-----";
    /** The line width of OpenSSH's armor ({@code sshbuf_dtob64} with wrapping). */
    static final int BASE64_LINE = 70;

    private final byte[] statementBytes;
    private final SignatureStatement statement;
    private final Ed25519PublicKey key;
    private final byte[] keyBlob;
    private final String hashAlgorithm;
    private final byte[] signature;

    private SignatureFile(
            byte[] statementBytes,
            SignatureStatement statement,
            Ed25519PublicKey key,
            byte[] keyBlob,
            String hashAlgorithm,
            byte[] signature) {
        this.statementBytes = statementBytes;
        this.statement = statement;
        this.key = key;
        this.keyBlob = keyBlob;
        this.hashAlgorithm = hashAlgorithm;
        this.signature = signature;
    }

    /**
     * Parses a signature file of at most {@code maxBytes} bytes.
     *
     * @throws Refusal with {@code SIGNATURE_FORMAT}, {@code SIGNATURE_ALGORITHM} or {@code
     *     SIGNATURE_NAMESPACE}
     */
    public static SignatureFile parse(byte[] file, int maxBytes) throws Refusal {
        if (file.length > maxBytes) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the signature file exceeds " + maxBytes + " bytes");
        }
        if (file.length == 0) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the signature file is empty");
        }
        int armorStart = findArmorStart(file);
        byte[] statementBytes = Arrays.copyOfRange(file, 0, armorStart);
        SignatureStatement statement = parseStatement(statementBytes);
        byte[] blob = dearmor(file, armorStart);
        return parseBlob(statementBytes, statement, blob);
    }

    /** The statement as signed (its exact bytes). */
    public SignatureStatement statement() {
        return statement;
    }

    /** The signing key named inside the signature. */
    public Ed25519PublicKey key() {
        return key;
    }

    /** The signing key's wire blob, copied. */
    public byte[] keyBlob() {
        return keyBlob.clone();
    }

    /** {@code sha256} or {@code sha512}. */
    public String hashAlgorithm() {
        return hashAlgorithm;
    }

    /**
     * Verifies the Ed25519 signature over the SSHSIG signed data for the embedded statement with
     * {@code trustedKey} (which the caller has matched to the embedded key).
     */
    public boolean verifiesWith(Ed25519PublicKey trustedKey) {
        byte[] messageHash = messageDigest(hashAlgorithm).digest(statementBytes);
        byte[] signedData = signedData(hashAlgorithm, messageHash);
        return trustedKey.verify(signedData, signature);
    }

    /**
     * The bytes an SSHSIG signature covers: {@code "SSHSIG" || string(namespace) || string(reserved)
     * || string(hash_algorithm) || string(H(message))} with the Skillgate namespace and an empty
     * reserved field.
     */
    static byte[] signedData(String hashAlgorithm, byte[] messageHash) {
        return new SshWriter()
                .raw(MAGIC)
                .string(NAMESPACE)
                .string(new byte[0])
                .string(hashAlgorithm)
                .string(messageHash)
                .toByteArray();
    }

    static MessageDigest messageDigest(String hashAlgorithm) {
        try {
            return MessageDigest.getInstance("sha512".equals(hashAlgorithm) ? "SHA-512" : "SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 and SHA-512 are required of every Java platform", e);
        }
    }

    private static int findArmorStart(byte[] file) throws Refusal {
        byte[] begin = (BEGIN + "\n").getBytes(StandardCharsets.US_ASCII);
        if (startsWith(file, 0, begin)) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT,
                    "the signature file has no statement: it must start with the "
                            + SignatureStatement.VERSION_TAG
                            + " statement, then the SSH signature");
        }
        for (int i = 1; i + begin.length <= file.length; i++) {
            if (file[i - 1] == '\n' && startsWith(file, i, begin)) {
                return i;
            }
        }
        throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the signature file has no -----BEGIN SSH SIGNATURE----- line");
    }

    static SignatureStatement parseStatement(byte[] bytes) throws Refusal {
        String tagLine = SignatureStatement.VERSION_TAG + "\n";
        byte[] tag = tagLine.getBytes(StandardCharsets.US_ASCII);
        if (!startsWith(bytes, 0, tag)) {
            byte[] family = "skillgate-signature-v".getBytes(StandardCharsets.US_ASCII);
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT,
                    startsWith(bytes, 0, family)
                            ? "unsupported statement version; this verifier reads " + SignatureStatement.VERSION_TAG
                            : "the signature file does not start with a " + SignatureStatement.VERSION_TAG
                                    + " statement");
        }
        if (bytes.length != SignatureStatement.LENGTH) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT,
                    "the statement is not exactly " + SignatureStatement.LENGTH + " bytes (three LF-terminated lines)");
        }
        int position = tag.length;
        Sha256Digest contract = digestLine(bytes, position, "contract ");
        position += "contract ".length() + 72;
        Sha256Digest revision = digestLine(bytes, position, "revision ");
        return new SignatureStatement(contract, new Revision(revision));
    }

    private static Sha256Digest digestLine(byte[] bytes, int position, String label) throws Refusal {
        byte[] prefix = label.getBytes(StandardCharsets.US_ASCII);
        int end = position + prefix.length + 71;
        if (!startsWith(bytes, position, prefix) || bytes[end] != '\n') {
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT, "the statement line '" + label.strip() + " sha256:...' is malformed");
        }
        String text = new String(bytes, position + prefix.length, 71, StandardCharsets.ISO_8859_1);
        try {
            return Sha256Digest.parse(text);
        } catch (InvalidValueException e) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT,
                    "the statement's " + label.strip() + " digest is not sha256: and 64 lowercase hex digits");
        }
    }

    /**
     * Decodes the armor, which must be byte for byte what OpenSSH's {@code sshsig_armor} writes:
     * base64 lines of exactly {@value #BASE64_LINE} characters, a last line of 1 to {@value
     * #BASE64_LINE}, then the end line and one LF. With the canonical base64 check this leaves
     * exactly one accepted armor per blob.
     */
    private static byte[] dearmor(byte[] file, int start) throws Refusal {
        int position = start + BEGIN.length() + 1;
        StringBuilder base64 = new StringBuilder(file.length);
        int previousLineLength = BASE64_LINE;
        while (true) {
            int newline = indexOf(file, (byte) '\n', position);
            if (newline < 0) {
                String rest = new String(file, position, file.length - position, StandardCharsets.ISO_8859_1);
                throw new Refusal(
                        ErrorCode.SIGNATURE_FORMAT,
                        rest.equals(END)
                                ? "the end line must be followed by a newline"
                                : "the SSH signature is truncated (no end line)");
            }
            String line = new String(file, position, newline - position, StandardCharsets.ISO_8859_1);
            position = newline + 1;
            if (line.equals(END)) {
                break;
            }
            checkBase64Line(line);
            if (previousLineLength != BASE64_LINE) {
                throw new Refusal(
                        ErrorCode.SIGNATURE_FORMAT,
                        "the SSH signature is not wrapped as ssh-keygen wraps it (" + BASE64_LINE
                                + " characters per line)");
            }
            previousLineLength = line.length();
            base64.append(line);
        }
        if (position != file.length) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the signature file has data after the end line");
        }
        if (base64.length() == 0) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the SSH signature is empty");
        }
        return Base64Strict.decode(base64.toString(), "the SSH signature");
    }

    private static void checkBase64Line(String line) throws Refusal {
        if (line.isEmpty() || line.length() > BASE64_LINE) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_FORMAT,
                    "an SSH signature line is empty or longer than " + BASE64_LINE + " characters");
        }
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '+'
                    || c == '/'
                    || c == '=';
            if (!ok) {
                throw new Refusal(
                        ErrorCode.SIGNATURE_FORMAT,
                        c == '\r'
                                ? "the SSH signature must use LF line endings"
                                : "the SSH signature contains a character outside base64");
            }
        }
    }

    private static SignatureFile parseBlob(byte[] statementBytes, SignatureStatement statement, byte[] blob)
            throws Refusal {
        SshReader reader = new SshReader(blob);
        if (!Arrays.equals(reader.readBytes(MAGIC.length, "magic preamble"), MAGIC)) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the SSH signature does not start with SSHSIG");
        }
        long version = reader.readUint32("version");
        if (version != VERSION) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "unsupported SSHSIG version " + version);
        }
        byte[] keyBlob = reader.readString("public key");
        byte[] namespace = reader.readString("namespace");
        byte[] reserved = reader.readString("reserved field");
        byte[] hashAlgorithm = reader.readString("hash algorithm");
        byte[] signatureBlob = reader.readString("signature");
        reader.requireEnd("the SSH signature");

        Ed25519PublicKey key = Ed25519PublicKey.fromBlob(keyBlob);
        byte[] signature = ed25519Signature(signatureBlob);
        String hash = new String(hashAlgorithm, StandardCharsets.UTF_8);
        if (!hash.equals("sha256") && !hash.equals("sha512")) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    "hash algorithm '" + Text.excerpt(hash) + "' is not accepted; sha256 or sha512 is");
        }
        if (reserved.length != 0) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the SSHSIG reserved field is not empty");
        }
        if (!Arrays.equals(namespace, NAMESPACE.getBytes(StandardCharsets.US_ASCII))) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_NAMESPACE,
                    "the signature namespace is '" + Text.excerpt(new String(namespace, StandardCharsets.UTF_8))
                            + "', not '" + NAMESPACE + "' (sign with ssh-keygen -Y sign -n " + NAMESPACE + ")");
        }
        return new SignatureFile(statementBytes, statement, key, keyBlob, hash, signature);
    }

    private static byte[] ed25519Signature(byte[] signatureBlob) throws Refusal {
        SshReader reader = new SshReader(signatureBlob);
        byte[] type = reader.readString("signature type");
        if (!Arrays.equals(type, Ed25519PublicKey.TYPE.getBytes(StandardCharsets.US_ASCII))) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    "signature type '" + Text.excerpt(new String(type, StandardCharsets.UTF_8))
                            + "' is not accepted; only ssh-ed25519 is");
        }
        byte[] signature = reader.readString("Ed25519 signature");
        if (signature.length != Ed25519PublicKey.SIGNATURE_LENGTH) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "an Ed25519 signature is 64 bytes");
        }
        reader.requireEnd("the signature blob");
        return signature;
    }

    private static boolean startsWith(byte[] data, int offset, byte[] prefix) {
        return offset + prefix.length <= data.length
                && Arrays.equals(data, offset, offset + prefix.length, prefix, 0, prefix.length);
    }

    private static int indexOf(byte[] data, byte value, int from) {
        for (int i = from; i < data.length; i++) {
            if (data[i] == value) {
                return i;
            }
        }
        return -1;
    }
}
