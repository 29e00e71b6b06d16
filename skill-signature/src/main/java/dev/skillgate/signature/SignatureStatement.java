package dev.skillgate.signature;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The statement a publisher signs: the SHA-256 digest of the exact {@code skill.contract.json}
 * bytes and the content {@link Revision} of the captured bundle, in a fixed, versioned text form
 * ({@code docs/signatures.md}).
 *
 * <p>The text form is exactly three LF-terminated ASCII lines and has one spelling per value:
 *
 * <pre>{@code
 * skillgate-signature-v1
 * contract sha256:<64 lowercase hex>
 * revision sha256:<64 lowercase hex>
 * }</pre>
 *
 * <p>A statement binds bytes, not meaning: it says nothing about whether the skill is safe, only
 * which contract and which captured files the key holder vouched for.
 *
 * @param contractDigest SHA-256 of the exact contract bytes
 * @param revision the content revision of the captured files
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SignatureStatement(Sha256Digest contractDigest, Revision revision) {

    /** The first line; a new statement layout gets a new tag, never a silent change. */
    public static final String VERSION_TAG = "skillgate-signature-v1";

    /** Length in bytes of every version-1 statement. */
    public static final int LENGTH = VERSION_TAG.length() + 1 + 2 * ("contract ".length() + 71 + 1);

    /** The armor line that must follow the statement in a signature file. */
    static final String ARMOR_BEGIN = "-----BEGIN SSH SIGNATURE-----\n";

    public SignatureStatement {
        Objects.requireNonNull(contractDigest, "contractDigest");
        Objects.requireNonNull(revision, "revision");
    }

    /** The statement for these exact contract bytes (hashed, not kept) and this revision. */
    public static SignatureStatement of(byte[] contractBytes, Revision revision) {
        Objects.requireNonNull(contractBytes, "contractBytes");
        return new SignatureStatement(Sha256Digest.hash(contractBytes), revision);
    }

    /** The exact statement text: the bytes a publisher signs. */
    public String toText() {
        return VERSION_TAG + "\n" + "contract " + contractDigest + "\n" + "revision " + revision + "\n";
    }

    /** The exact bytes a publisher signs (ASCII of {@link #toText()}). */
    public byte[] toBytes() {
        return toText().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The content of a bundle's signature file: this statement followed by the armored SSH
     * signature that {@code ssh-keygen -Y sign -n skillgate} wrote for it.
     *
     * <p>Only the framing is checked here (the armor must start with the {@code -----BEGIN SSH
     * SIGNATURE-----} line and the result must fit {@link SignatureVerifier#MAX_SIGNATURE_FILE_BYTES});
     * whether the signature is valid is {@link SignatureVerifier}'s job.
     *
     * @throws InvalidValueException with {@code SIGNATURE_FORMAT} when the framing is wrong
     */
    public byte[] signatureFile(byte[] armoredSshSignature) {
        Objects.requireNonNull(armoredSshSignature, "armoredSshSignature");
        byte[] begin = ARMOR_BEGIN.getBytes(StandardCharsets.US_ASCII);
        if (armoredSshSignature.length < begin.length
                || !Arrays.equals(armoredSshSignature, 0, begin.length, begin, 0, begin.length)) {
            throw new InvalidValueException(
                    ErrorCode.SIGNATURE_FORMAT, "the SSH signature must start with -----BEGIN SSH SIGNATURE-----");
        }
        byte[] statement = toBytes();
        if ((long) statement.length + armoredSshSignature.length > SignatureVerifier.MAX_SIGNATURE_FILE_BYTES) {
            throw new InvalidValueException(ErrorCode.SIGNATURE_FORMAT, "the signature file would be too large");
        }
        byte[] file = Arrays.copyOf(statement, statement.length + armoredSshSignature.length);
        System.arraycopy(armoredSshSignature, 0, file, statement.length, armoredSshSignature.length);
        return file;
    }

    @Override
    public String toString() {
        return "SignatureStatement[contract " + contractDigest + ", revision " + revision + "]";
    }
}
