package dev.skillgate.audit.internal;

import dev.skillgate.model.Sha256Digest;
import java.nio.ByteBuffer;

/**
 * A scope id as four longs: the trust table's key, cheaper to build and compare than its hex form.
 */
record ScopeKey(long a, long b, long c, long d) {
    static ScopeKey of(byte[] digest) {
        ByteBuffer bb = ByteBuffer.wrap(digest);
        return new ScopeKey(bb.getLong(0), bb.getLong(8), bb.getLong(16), bb.getLong(24));
    }

    static ScopeKey of(Sha256Digest digest) {
        return of(digest.bytes());
    }
}
