package dev.skillgate.signature;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.signature.internal.AllowedSignersParser;
import dev.skillgate.signature.internal.BoundedFile;
import dev.skillgate.signature.internal.Ed25519PublicKey;
import dev.skillgate.signature.internal.Refusal;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The publisher keys a host allows, parsed from an OpenSSH {@code allowed_signers} file or built in
 * code.
 *
 * <p>Only lines that can be honoured exactly become entries ({@link PublisherKey}); every other line
 * grants nothing and is reported in {@link #diagnostics()}: malformed lines as errors ({@code
 * SIGNATURE_FORMAT}), well-formed but unsupported ones as warnings ({@code SIGNATURE_ALGORITHM} for
 * non-Ed25519 keys, {@code SIGNATURE_SIGNER_UNSUPPORTED} for {@code cert-authority}, {@code
 * valid-after}, {@code valid-before}). A host that wants all-or-nothing configuration refuses a set
 * with {@link #hasErrors()}. The set is immutable and thread-safe. It is configuration the host
 * trusts: Skillgate does not check who wrote it, and it has no expiry or revocation of its own.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class PublisherKeys {

    /** Largest allowed-signers file read, in bytes. */
    public static final int MAX_FILE_BYTES = 256 * 1024;

    private final List<PublisherKey> entries;
    private final List<Ed25519PublicKey> keys;
    private final List<Diagnostic> diagnostics;

    private PublisherKeys(List<PublisherKey> entries, List<Diagnostic> diagnostics) {
        this.entries = List.copyOf(entries);
        this.diagnostics = List.copyOf(diagnostics);
        List<Ed25519PublicKey> parsed = new ArrayList<>(entries.size());
        for (PublisherKey entry : this.entries) {
            parsed.add(PublisherKey.parse(entry.publicKey()));
        }
        this.keys = List.copyOf(parsed);
    }

    /**
     * Parses the content of an allowed-signers file (UTF-8). Never throws for any content; a file
     * that is not UTF-8 or holds NUL gives no entries and one error.
     */
    public static PublisherKeys parse(byte[] allowedSigners) {
        Objects.requireNonNull(allowedSigners, "allowedSigners");
        if (allowedSigners.length > MAX_FILE_BYTES) {
            return new PublisherKeys(
                    List.of(),
                    List.of(Diagnostic.error(
                            ErrorCode.READ_TOO_LARGE,
                            "",
                            "the allowed-signers file exceeds " + MAX_FILE_BYTES + " bytes")));
        }
        AllowedSignersParser.Result result = AllowedSignersParser.parse(allowedSigners);
        return new PublisherKeys(result.keys(), result.diagnostics());
    }

    /**
     * Reads and parses an allowed-signers file: at most {@link #MAX_FILE_BYTES}, a regular file, the
     * last path component never followed as a link. A file that cannot be read that way gives no
     * entries and one error ({@code READ_NOT_FOUND}, {@code READ_LINK}, {@code READ_NOT_REGULAR},
     * {@code READ_TOO_LARGE}, or {@code READ_IO} when it changed while being read).
     *
     * @throws IOException for other I/O faults
     */
    public static PublisherKeys read(Path allowedSignersFile) throws IOException {
        Objects.requireNonNull(allowedSignersFile, "allowedSignersFile");
        byte[] bytes;
        try {
            bytes = BoundedFile.read(allowedSignersFile, MAX_FILE_BYTES);
        } catch (Refusal refusal) {
            return new PublisherKeys(List.of(), List.of(refusal.toDiagnostic("")));
        }
        return parse(bytes);
    }

    /** A builder for keys configured in code. */
    public static Builder builder() {
        return new Builder();
    }

    /** The usable entries, in file (or insertion) order. */
    public List<PublisherKey> entries() {
        return entries;
    }

    /** Problems found while reading or parsing; located at {@code line N} where one applies. */
    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }

    /** Whether any line was malformed or the file could not be read. */
    public boolean hasErrors() {
        return diagnostics.stream().anyMatch(Diagnostic::isError);
    }

    /** Whether no key is allowed at all. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The parsed key of entry {@code index}. */
    Ed25519PublicKey key(int index) {
        return keys.get(index);
    }

    @Override
    public String toString() {
        return "PublisherKeys[" + entries.size() + " entries, " + diagnostics.size() + " diagnostics]";
    }

    /** Collects publisher keys configured in code. Not thread-safe; {@link #build()} copies. */
    public static final class Builder {
        private final List<PublisherKey> entries = new ArrayList<>();

        private Builder() {}

        /** Adds one key. */
        public Builder add(PublisherKey key) {
            entries.add(Objects.requireNonNull(key, "key"));
            return this;
        }

        /**
         * Adds a key for one principal from an OpenSSH public key line ({@code ssh-ed25519 <base64>
         * [comment]}).
         *
         * @throws dev.skillgate.model.InvalidValueException when the key is not a well-formed
         *     Ed25519 key
         */
        public Builder add(String principal, String openSshPublicKey) {
            return add(PublisherKey.of(principal, openSshPublicKey));
        }

        /** The immutable set. */
        public PublisherKeys build() {
            return new PublisherKeys(entries, List.of());
        }
    }
}
