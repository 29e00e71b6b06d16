package dev.skillgate.workflow;

import dev.skillgate.workflow.internal.FileKeyProvider;
import java.nio.file.Path;
import org.apiguardian.api.API;

/**
 * Wraps and unwraps the per-record data keys of the workflow store (envelope encryption). A host may
 * plug its KMS here; the default is {@link #keyFile(Path)}.
 *
 * <p>Contract: {@link #wrap} binds the wrapped key to {@code context} (the record's authenticated
 * header) so it cannot be moved to another record; {@link #unwrap} of a key id the provider does not
 * hold throws {@link KeyException} with {@code WORKFLOW_KEY_MISMATCH}; a wrapped key that fails
 * authentication throws with {@code WORKFLOW_RECORD_TAMPERED}; a provider that cannot work at all
 * (missing or unsafe key file, KMS down) throws with {@code WORKFLOW_KEY_UNAVAILABLE}. A provider
 * never returns a wrong key: an unwrap either returns the exact data key or throws.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public interface KeyProvider {

    /** The id of the key new records are wrapped under (1-64 of {@code [A-Za-z0-9._:-]}). */
    String keyId() throws KeyException;

    /** Wraps the 32-byte {@code dataKey} under {@link #keyId()}, bound to {@code context}. */
    byte[] wrap(byte[] dataKey, byte[] context) throws KeyException;

    /** Unwraps a data key wrapped under {@code keyId} for {@code context}. */
    byte[] unwrap(String keyId, byte[] wrapped, byte[] context) throws KeyException;

    /**
     * The default provider: a 32-byte AES-256 key in {@code file}, created on first use with 32 bytes
     * from the JDK's strong random source, mode 0600 in a 0700 directory, written with
     * {@code CREATE_NEW}, forced to disk. The file is refused ({@code WORKFLOW_KEY_UNAVAILABLE}) when
     * it is a link, not a regular file, not exactly 32 bytes, or readable or writable by group or
     * others. Data keys are wrapped with AES-256-GCM under it. The key id is derived from the key
     * (a SHA-256 prefix), so another key file is another key id: records sealed under one are
     * refused with {@code WORKFLOW_KEY_MISMATCH} under the other.
     */
    static KeyProvider keyFile(Path file) {
        return new FileKeyProvider(file);
    }
}
