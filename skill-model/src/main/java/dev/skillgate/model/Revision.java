package dev.skillgate.model;

import java.util.Objects;

/**
 * The content revision of a captured skill artifact: {@code sha256:} + hex of the framed SHA-256
 * over every captured file (SPEC §7, specified byte for byte in {@code docs/revision.md}).
 *
 * <p>Consent, receipts and trust scopes bind to a revision. Equal revisions mean equal captured
 * bytes and paths (up to SHA-256 collisions); the revision says nothing about what the files do.
 *
 * @param digest the framed digest
 */
public record Revision(Sha256Digest digest) {

    public Revision {
        Objects.requireNonNull(digest, "digest");
    }

    /** Parses {@code sha256:<64 lowercase hex>} exactly. */
    public static Revision parse(String text) {
        return new Revision(Sha256Digest.parse(text));
    }

    /** {@code sha256:} + hex. */
    @Override
    public String toString() {
        return digest.toString();
    }
}
