package dev.skillgate.runner.linux.internal;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers, per executable path and pinned digest, the file identity the helper reported after it
 * hashed that open file in full and found the digest. The next request offers that identity; the
 * helper skips the hash only if its own {@code fstat} of the file it is about to exec matches
 * exactly (decision 0182). Bounded; dropping an entry only costs a re-hash.
 */
public final class ExecutableIdentityCache {
    private static final int MAX_ENTRIES = 64;
    private final Map<String, FileIdentity> entries = new ConcurrentHashMap<>();

    /** The identity last verified in full for this path and digest. */
    public Optional<FileIdentity> lookup(String executable, String digestHex) {
        return Optional.ofNullable(entries.get(key(executable, digestHex)));
    }

    /** Records an identity the helper hashed in full and found matching. */
    public void remember(String executable, String digestHex, FileIdentity identity) {
        if (entries.size() >= MAX_ENTRIES) {
            entries.clear();
        }
        entries.put(key(executable, digestHex), identity);
    }

    /** Forgets everything (tests use it to force a full hash). */
    public void clear() {
        entries.clear();
    }

    private static String key(String executable, String digestHex) {
        return digestHex + "\0" + executable;
    }
}
