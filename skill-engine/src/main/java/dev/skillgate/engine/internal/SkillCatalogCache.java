package dev.skillgate.engine.internal;

import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The gate's skill catalog (decision 0805): one discovery walk kept and revalidated per lookup by
 * re-reading the identities of the roots and of the one skill asked for, so that finding a skill
 * costs a handful of {@code stat} calls whatever the roots hold.
 *
 * <p><b>What a lookup trusts.</b> A kept answer for a name is used only when (1) every root's
 * identity (device, inode, modification and change times, type) equals what it was when the answer
 * was first used and (2) the same holds for every directory from the skill's root down to the
 * skill and for its skill file, and (3) none of those change times is later than {@link #racyMargin}
 * before the walk that produced the answer began (a change made while or after the walk ran, or
 * within one timestamp tick of it, makes the entry untrusted: the "racily clean" rule). A change
 * time cannot be set by an unprivileged process (restoring a modification time with {@code utimes}
 * sets it), so a directory swapped in under the same name is seen. Anything else — a name not in
 * the catalog, a root that changed, a racy or changed chain — is answered by a fresh walk.
 *
 * <p><b>What it does not see at once.</b> A change outside the asked skill's chain and outside the
 * roots' own entries that would make <em>another</em> directory win the name (a new skill in a
 * nested directory earlier in walk order, or another skill's {@code SKILL.md} edited in place to
 * carry the name) is seen at the next walk: at the latest {@link #maxAge} after the catalog was
 * walked (a background refresh), at the next listing, or at the next change of a root. Never
 * trusted for bytes: the capture still reads and verifies every byte of the skill that runs, and
 * the approval shows where it lives.
 *
 * <p>Thread-safe; walks are single-flight.
 */
public final class SkillCatalogCache {
    /** Default margin of the racily-clean rule: well above any file system timestamp tick. */
    public static final Duration DEFAULT_RACY_MARGIN = Duration.ofSeconds(2);

    /** Default age after which a lookup starts a background walk. */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(10);

    private static final String ATTRIBUTES = "unix:dev,ino,mode,size,lastModifiedTime,ctime";

    private final Supplier<DiscoveryResult> walker;
    private final List<Path> roots;
    private final long racyMarginNanos;
    private final long maxAgeNanos;
    private final Object walkLock = new Object();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final AtomicLong walks = new AtomicLong();
    private volatile Snapshot current;

    /**
     * A catalog over {@code roots} that walks with {@code walker}.
     *
     * @param walker the discovery walk (the same roots)
     * @param roots the configured roots, as the walk is given them
     * @param racyMargin change times this close to a walk's start make its answers untrusted
     * @param maxAge a lookup on a catalog older than this starts a background walk
     */
    public SkillCatalogCache(Supplier<DiscoveryResult> walker, List<Path> roots, Duration racyMargin, Duration maxAge) {
        this.walker = Objects.requireNonNull(walker, "walker");
        this.roots = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.racyMarginNanos = racyMargin.toNanos();
        this.maxAgeNanos = maxAge.toNanos();
    }

    /** A catalog with the default margins. */
    public SkillCatalogCache(Supplier<DiscoveryResult> walker, List<Path> roots) {
        this(walker, roots, DEFAULT_RACY_MARGIN, DEFAULT_MAX_AGE);
    }

    /** A full walk now; the result replaces the kept catalog (listings always walk). */
    public DiscoveryResult discover() {
        return walk(Long.MAX_VALUE).result;
    }

    /** How many walks this catalog made (for tests and benchmarks). */
    public long walks() {
        return walks.get();
    }

    /**
     * The loadable skill called {@code name} as a fresh walk would answer it, except for the changes
     * elsewhere in the tree the class comment names; never a skill whose chain changed since it was
     * walked.
     */
    public Optional<DiscoveredSkill> locate(String name) {
        Objects.requireNonNull(name, "name");
        long asked = System.nanoTime();
        Snapshot s = current;
        if (s != null) {
            Optional<DiscoveredSkill> kept = s.trusted(name);
            if (kept.isPresent()) {
                if (System.nanoTime() - s.walkedAtNanos > maxAgeNanos) {
                    refreshInBackground();
                }
                return kept;
            }
        }
        return Optional.ofNullable(walk(asked).winners.get(name));
    }

    private void refreshInBackground() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        walk(Long.MAX_VALUE);
                    } catch (RuntimeException ignored) {
                        // The next lookup walks in the foreground and meets the problem itself.
                    } finally {
                        refreshing.set(false);
                    }
                },
                "skillgate-catalog-refresh");
        t.setDaemon(true);
        t.start();
    }

    /**
     * A walk, or the kept one when it started at or after {@code askedAtNanos} (it saw a tree at
     * least as new as the asker did): concurrent misses share one walk.
     */
    private Snapshot walk(long askedAtNanos) {
        synchronized (walkLock) {
            Snapshot kept = current;
            if (kept != null && kept.walkedAtNanos - askedAtNanos >= 0 && askedAtNanos != Long.MAX_VALUE) {
                return kept;
            }
            long startedWallNanos = wallNanos();
            long startedNanos = System.nanoTime();
            Map<Path, Stamp> rootStamps = new HashMap<>();
            for (Path root : roots) {
                rootStamps.put(root, Stamp.of(root));
            }
            DiscoveryResult result = walker.get();
            walks.incrementAndGet();
            Snapshot s = new Snapshot(result, rootStamps, startedWallNanos, startedNanos);
            current = s;
            return s;
        }
    }

    private static long wallNanos() {
        java.time.Instant now = java.time.Instant.now();
        return TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
    }

    /** One walk's result with what its answers are checked against. */
    private final class Snapshot {
        final DiscoveryResult result;
        final Map<String, DiscoveredSkill> winners = new HashMap<>();
        final Map<Path, Stamp> rootStamps;
        final long walkStartWallNanos;
        final long walkedAtNanos;
        /** Chains stamped at first use of an answer; compared on every later use. */
        final Map<String, List<Stamp>> chains = new ConcurrentHashMap<>();

        Snapshot(DiscoveryResult result, Map<Path, Stamp> rootStamps, long walkStartWallNanos, long walkedAtNanos) {
            this.result = result;
            this.rootStamps = Map.copyOf(rootStamps);
            this.walkStartWallNanos = walkStartWallNanos;
            this.walkedAtNanos = walkedAtNanos;
            for (DiscoveredSkill s : result.skills()) {
                winners.putIfAbsent(s.name(), s);
            }
        }

        Optional<DiscoveredSkill> trusted(String name) {
            DiscoveredSkill s = winners.get(name);
            if (s == null) {
                return Optional.empty();
            }
            for (Map.Entry<Path, Stamp> r : rootStamps.entrySet()) {
                Stamp now = Stamp.of(r.getKey());
                // A root that is absent stays trusted while it stays absent; one that appears is a change.
                if (!now.equals(r.getValue()) || (!now.absent() && racy(now))) {
                    return Optional.empty();
                }
            }
            List<Path> chain = chain(s);
            List<Stamp> now = new ArrayList<>(chain.size());
            for (Path p : chain) {
                Stamp st = Stamp.of(p);
                if (st.absent() || racy(st)) {
                    return Optional.empty();
                }
                now.add(st);
            }
            List<Stamp> first = chains.putIfAbsent(name, List.copyOf(now));
            if (first != null && !first.equals(now)) {
                return Optional.empty();
            }
            return Optional.of(s);
        }

        private boolean racy(Stamp s) {
            return s.ctimeNanos() >= walkStartWallNanos - racyMarginNanos;
        }
    }

    /** The root, each directory below it down to the skill, and the skill file. */
    static List<Path> chain(DiscoveredSkill s) {
        List<Path> chain = new ArrayList<>();
        Path p = s.root().toAbsolutePath().normalize();
        chain.add(p);
        if (!s.relativePath().isEmpty()) {
            for (String segment : s.relativePath().split("/", -1)) {
                p = p.resolve(segment);
                chain.add(p);
            }
        }
        Path file = s.location().toAbsolutePath().normalize();
        if (!file.equals(p)) {
            chain.add(file);
        }
        return List.copyOf(chain);
    }

    /**
     * What a {@code stat} without following links says about one path; {@link #ABSENT} when it
     * cannot be read.
     */
    record Stamp(long dev, long ino, int mode, long size, long mtimeNanos, long ctimeNanos) {
        static final Stamp ABSENT = new Stamp(-1, -1, -1, -1, Long.MIN_VALUE, Long.MAX_VALUE);

        boolean absent() {
            return equals(ABSENT);
        }

        static Stamp of(Path p) {
            try {
                Map<String, Object> a = Files.readAttributes(p, ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                return new Stamp(
                        ((Number) a.get("dev")).longValue(),
                        ((Number) a.get("ino")).longValue(),
                        ((Number) a.get("mode")).intValue(),
                        ((Number) a.get("size")).longValue(),
                        nanos((FileTime) a.get("lastModifiedTime")),
                        nanos((FileTime) a.get("ctime")));
            } catch (IOException | RuntimeException e) {
                return ABSENT;
            }
        }

        private static long nanos(FileTime t) {
            return t.to(TimeUnit.NANOSECONDS);
        }
    }
}
