package dev.skillgate.signature;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.signature.internal.Ed25519PublicKey;
import dev.skillgate.signature.internal.OpenSshPrivateKey;
import dev.skillgate.signature.internal.PrivateKeyFile;
import dev.skillgate.signature.internal.Refusal;
import dev.skillgate.signature.internal.SignatureFile;
import dev.skillgate.signature.internal.SshSignatureWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Signs {@link SignatureStatement}s with a publisher's OpenSSH Ed25519 private key, producing the
 * bundle signature file ({@value SignatureVerifier#SIGNATURE_FILE_NAME}) that {@link
 * SignatureVerifier} and {@code ssh-keygen -Y verify -n skillgate} accept ({@code
 * docs/signatures.md}).
 *
 * <p>{@link #open(Path)} reads only an <em>unencrypted</em> {@code openssh-key-v1} {@code
 * ssh-ed25519} key, the file {@code ssh-keygen -t ed25519 -N ''} writes: not through a link, not a
 * FIFO or device, at most {@value #MAX_KEY_FILE_BYTES} bytes, and not when group or others have any
 * permission on it. Refusals are values with a stable code: {@code READ_NOT_FOUND}, {@code
 * READ_LINK}, {@code READ_NOT_REGULAR}, {@code READ_TOO_LARGE}, {@code READ_IO}, {@code
 * SIGNATURE_KEY_PERMISSIONS}, {@code SIGNATURE_KEY_ENCRYPTED}, {@code SIGNATURE_ALGORITHM} (any key
 * type but Ed25519) and {@code SIGNATURE_KEY_FORMAT}.
 *
 * <p>A signature made here is byte for byte what {@code ssh-keygen -Y sign -n skillgate} makes with
 * the same key (SSHSIG, hash {@code sha512}; Ed25519 is deterministic), and each one is checked
 * with the verifier before it is returned. Signing vouches for bytes: it says nothing about whether
 * the skill is safe. {@link #close()} overwrites the key's seed; copies inside Bouncy Castle and
 * the JVM's garbage are not under our control. Thread-safe.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SignatureSigner implements AutoCloseable {

    /** Largest private key file read, in bytes. */
    public static final int MAX_KEY_FILE_BYTES = PrivateKeyFile.MAX_BYTES;

    /** The SSHSIG message hash of every signature made here ({@code ssh-keygen}'s default). */
    public static final String HASH_ALGORITHM = SshSignatureWriter.HASH_ALGORITHM;

    /** The outcome of {@link #open(Path)}: a {@link Ready} signer or why the key was {@link Refused}. */
    public sealed interface Opening permits Ready, Refused {}

    /**
     * A usable key; the caller closes the signer.
     *
     * @param signer the signer holding the key
     */
    public record Ready(SignatureSigner signer) implements Opening {
        public Ready {
            Objects.requireNonNull(signer, "signer");
        }
    }

    /**
     * The key file was not used.
     *
     * @param diagnostic an error with the refusal's code and no location
     */
    public record Refused(Diagnostic diagnostic) implements Opening {
        public Refused {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        /** The stable code. */
        public ErrorCode code() {
            return diagnostic.code();
        }
    }

    private final OpenSshPrivateKey key;

    private SignatureSigner(OpenSshPrivateKey key) {
        this.key = key;
    }

    /**
     * Reads the private key file {@code privateKeyFile}.
     *
     * @throws IOException for I/O faults other than the refusals listed on this class
     */
    public static Opening open(Path privateKeyFile) throws IOException {
        Objects.requireNonNull(privateKeyFile, "privateKeyFile");
        try {
            return new Ready(new SignatureSigner(PrivateKeyFile.read(privateKeyFile)));
        } catch (Refusal refusal) {
            return new Refused(refusal.toDiagnostic(""));
        }
    }

    /** The key's OpenSSH fingerprint, as {@code ssh-keygen -l} prints it ({@code SHA256:...}). */
    public String keyFingerprint() {
        return key.publicKey().fingerprint();
    }

    /**
     * The public key as an OpenSSH line without a comment ({@code ssh-ed25519 <base64>}), for an
     * {@code allowed_signers} entry.
     */
    public String publicKey() {
        return key.publicKey().toOpenSsh();
    }

    /**
     * The content of a bundle's signature file for {@code statement}: the statement followed by the
     * armored SSH signature over exactly its bytes.
     *
     * @throws IllegalStateException after {@link #close()}
     */
    public byte[] signatureFile(SignatureStatement statement) {
        Objects.requireNonNull(statement, "statement");
        byte[] file = statement.signatureFile(SshSignatureWriter.armoredSignature(key, statement.toBytes()));
        selfCheck(statement, file);
        return file;
    }

    /** Overwrites the private key's seed; idempotent. The signer cannot sign afterwards. */
    @Override
    public void close() {
        key.close();
    }

    @Override
    public String toString() {
        return "SignatureSigner[" + keyFingerprint() + "]";
    }

    /** A signature this verifier would refuse is a bug here, never a file to write. */
    private void selfCheck(SignatureStatement statement, byte[] file) {
        SignatureFile parsed;
        try {
            parsed = SignatureFile.parse(file, SignatureVerifier.MAX_SIGNATURE_FILE_BYTES);
        } catch (Refusal refusal) {
            throw new IllegalStateException("a signature made here does not parse: " + refusal.code());
        }
        Ed25519PublicKey signer = key.publicKey();
        if (!parsed.key().equals(signer)
                || !parsed.statement().equals(statement)
                || !parsed.verifiesWith(signer)
                || !Arrays.equals(parsed.keyBlob(), signer.blob())) {
            throw new IllegalStateException("a signature made here does not verify");
        }
    }
}
