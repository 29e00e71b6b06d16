package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An Ed25519 signed-note signer: a key name and a private key (C2SP signed-note v1.0.0).
 *
 * <p>Its text form is Go's {@code note.NewSigner} form, {@code PRIVATE+KEY+name+hexid+base64(0x01 ‖
 * seed)}, so a key made here works with Go's tools and the other way round. That text is the secret:
 * {@link #encodePrivate()} is there to store it in a file only its owner can read; {@link
 * #toString()} never shows it.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class NoteSigner {
    private static final String PRIVATE_PREFIX = "PRIVATE+KEY+";

    private final String name;
    private final byte[] seed;
    private final NoteVerifierKey verifierKey;

    private NoteSigner(String name, byte[] seed) {
        this.name = NoteKeys.checkName(name);
        this.seed = seed.clone();
        this.verifierKey = NoteVerifierKey.of(name, Ed25519.publicKey(this.seed));
    }

    /** A fresh random key named {@code name}. */
    public static NoteSigner generate(String name) {
        Objects.requireNonNull(name, "name");
        byte[] seed = Ed25519.newSeed();
        try {
            return new NoteSigner(name, seed);
        } finally {
            Arrays.fill(seed, (byte) 0);
        }
    }

    /** The key named {@code name} for a 32-byte RFC 8032 seed (copied). */
    public static NoteSigner fromSeed(String name, byte[] seed) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(seed, "seed");
        if (seed.length != 32) {
            throw new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "an Ed25519 seed is 32 bytes");
        }
        return new NoteSigner(name, seed);
    }

    /**
     * Parses {@code PRIVATE+KEY+name+hexid+base64(0x01 ‖ seed)}, checking the id.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) otherwise; the message never
     *     quotes the input
     */
    public static NoteSigner parse(String text) {
        Objects.requireNonNull(text, "text");
        if (!text.startsWith(PRIVATE_PREFIX) || text.length() > NoteKeys.MAX_NAME + 80) {
            throw NoteKeys.format("a signer key is PRIVATE+KEY+name+hexid+base64");
        }
        String[] parts = text.substring(PRIVATE_PREFIX.length()).split("\\+", 3);
        if (parts.length != 3) {
            throw NoteKeys.format("a signer key is PRIVATE+KEY+name+hexid+base64");
        }
        String name = NoteKeys.checkName(parts[0]);
        int id = NoteKeys.parseHexId(parts[1]);
        byte[] key = NoteKeys.base64(parts[2], "a signer key");
        try {
            if (key.length != 33 || key[0] != NoteKeys.ED25519) {
                throw NoteKeys.format("a signer key is type 0x01 (Ed25519) and 32 bytes");
            }
            NoteSigner signer = new NoteSigner(name, Arrays.copyOfRange(key, 1, 33));
            if (signer.verifierKey.keyId() != id) {
                throw NoteKeys.format("the signer key's id does not match its name and key");
            }
            return signer;
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /** The key name. */
    public String name() {
        return name;
    }

    /** The verifier key to give to whoever checks this signer's notes. */
    public NoteVerifierKey verifierKey() {
        return verifierKey;
    }

    /** The secret text form (Go's {@code note} private key form). Store it only where its owner alone can read. */
    public String encodePrivate() {
        byte[] k = new byte[33];
        k[0] = NoteKeys.ED25519;
        System.arraycopy(seed, 0, k, 1, 32);
        try {
            return PRIVATE_PREFIX + name + "+" + NoteKeys.hexId(verifierKey.keyId()) + "+"
                    + Base64.getEncoder().encodeToString(k);
        } finally {
            Arrays.fill(k, (byte) 0);
        }
    }

    /** Signs a note text (it must end with a newline; see {@link SignedNote#sign}). */
    public NoteSignature sign(String text) {
        SignedNote.checkText(text);
        return new NoteSignature(name, verifierKey.keyId(), Ed25519.sign(seed, text.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public String toString() {
        return "NoteSigner[" + name + "+" + NoteKeys.hexId(verifierKey.keyId()) + "]";
    }
}
