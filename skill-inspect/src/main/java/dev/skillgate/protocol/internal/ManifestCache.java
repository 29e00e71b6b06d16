package dev.skillgate.protocol.internal;

import dev.skillgate.protocol.ManifestVerdict;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The accepted manifests parsed most recently (decision 0806): a manifest, with its two compiled
 * schemas, is parsed once per distinct content and shared afterwards, so a second capture of the
 * same bytes (the re-capture before launch, the next execute of the same revision) compiles
 * nothing.
 *
 * <p>An entry is found by the SHA-256 of the bytes and used only when the kept bytes are equal to
 * the asked ones byte for byte, so the answer never rests on the hash alone. Only {@link
 * ManifestVerdict.Accepted} verdicts are kept (a rejection is cheap to reach again and an attacker
 * could fill the cache with them); at most {@link #MAX_ENTRIES} entries, least recently used first
 * out. A verdict is immutable and its schemas are safe to share between threads, so sharing one
 * changes nothing a caller can observe but its identity. Thread-safe.
 */
public final class ManifestCache {
    /** Most manifests kept. */
    public static final int MAX_ENTRIES = 256;

    /** The process-wide cache the parser uses. */
    public static final ManifestCache SHARED = new ManifestCache(MAX_ENTRIES);

    private final int maxEntries;
    private final LinkedHashMap<Key, Entry> entries; // guarded by itself

    private record Key(String sha256) {}

    private record Entry(byte[] bytes, ManifestVerdict.Accepted verdict) {}

    /** A cache of at most {@code maxEntries} verdicts. */
    public ManifestCache(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be positive");
        }
        this.maxEntries = maxEntries;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
                return size() > ManifestCache.this.maxEntries;
            }
        };
    }

    /**
     * The verdict for {@code copy} (a private copy the caller will not change): the kept one when the
     * same bytes were accepted before, otherwise {@code parse} of it (kept when accepted).
     */
    public ManifestVerdict verdict(byte[] copy, Function<byte[], ManifestVerdict> parse) {
        Key key = new Key(Sha256.hex(copy));
        synchronized (entries) {
            Entry e = entries.get(key);
            if (e != null && Arrays.equals(e.bytes(), copy)) {
                return e.verdict();
            }
        }
        ManifestVerdict v = parse.apply(copy);
        if (v instanceof ManifestVerdict.Accepted accepted) {
            synchronized (entries) {
                entries.put(key, new Entry(copy.clone(), accepted));
            }
        }
        return v;
    }

    /** How many verdicts are kept now. */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /** Small SHA-256 helper (the JDK's provider). */
    static final class Sha256 {
        private Sha256() {}

        static String hex(byte[] bytes) {
            try {
                return java.util.HexFormat.of()
                        .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(bytes));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is missing from the JDK", e);
            }
        }
    }
}
