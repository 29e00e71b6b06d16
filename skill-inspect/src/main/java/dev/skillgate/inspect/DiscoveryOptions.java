package dev.skillgate.inspect;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Configuration of {@link SkillDiscovery}: the roots in precedence order and the walk bounds.
 *
 * <p>Bounds are validated when the options are built: a value out of range is rejected with {@link
 * InvalidValueException} ({@code LIMIT_OUT_OF_RANGE}), never clamped.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class DiscoveryOptions {
    /** Fewest roots. */
    public static final int MIN_ROOTS = 1;

    /** Most roots. */
    public static final int MAX_ROOTS = 64;

    /** Smallest {@link #maxDepth()}: direct children of a root only. */
    public static final int MIN_DEPTH = 1;

    /** Largest {@link #maxDepth()}. */
    public static final int MAX_DEPTH = 16;

    /** Default {@link #maxDepth()}. */
    public static final int DEFAULT_DEPTH = 4;

    /** Smallest {@link #maxEntriesPerRoot()}. */
    public static final int MIN_ENTRIES = 1;

    /** Largest {@link #maxEntriesPerRoot()}. */
    public static final int MAX_ENTRIES = 1_000_000;

    /** Default {@link #maxEntriesPerRoot()}. */
    public static final int DEFAULT_ENTRIES = 20_000;

    private final List<Path> roots;
    private final int maxDepth;
    private final int maxEntriesPerRoot;
    private final ValidationProfile profile;
    private final boolean legacyFlatFiles;
    private final boolean dotDirectories;
    private final boolean acceptPartial;

    private DiscoveryOptions(Builder b) {
        this.dotDirectories = b.dotDirectories;
        this.acceptPartial = b.acceptPartial;
        this.roots = List.copyOf(b.roots);
        this.maxDepth = b.maxDepth;
        this.maxEntriesPerRoot = b.maxEntriesPerRoot;
        this.profile = b.profile;
        this.legacyFlatFiles = b.legacyFlatFiles;
    }

    /** A builder with the defaults: depth {@value #DEFAULT_DEPTH}, {@value #DEFAULT_ENTRIES} entries per root, strict profile, legacy flat files found. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options for {@code roots} with every default. */
    public static DiscoveryOptions of(List<Path> roots) {
        return builder().roots(roots).build();
    }

    /** The roots, highest precedence first: on equal names the first root wins. */
    public List<Path> roots() {
        return roots;
    }

    /** How many directory levels below a root a skill directory may sit (1 = direct children only). */
    public int maxDepth() {
        return maxDepth;
    }

    /** How many directory entries the walk of one root may look at before it stops. */
    public int maxEntriesPerRoot() {
        return maxEntriesPerRoot;
    }

    /** The profile each candidate is validated under. */
    public ValidationProfile profile() {
        return profile;
    }

    /** Whether {@code NAME.md} files directly in a root are loaded as legacy flat skills. */
    public boolean legacyFlatFiles() {
        return legacyFlatFiles;
    }

    /**
     * Whether directories whose names start with {@code .} are searched (default {@code true}: skills
     * live under {@code .curated/}, {@code .claude/skills/}, {@code .agents/skills/}). Version-control
     * metadata ({@code .git}, {@code .hg}, {@code .svn}) and {@code node_modules} are never searched;
     * every directory not searched is reported ({@code LAYOUT_SKIPPED}).
     */
    public boolean dotDirectories() {
        return dotDirectories;
    }

    /**
     * Whether a walk that overflows {@link #maxEntriesPerRoot()} may yield a partial catalog (a
     * warning). Default {@code false}: the overflow is an error and the result holds no skills
     * ({@link DiscoveryResult#incomplete()}), so a catalog never silently misses skills.
     */
    public boolean acceptPartial() {
        return acceptPartial;
    }

    /** Builds {@link DiscoveryOptions}; every setter rejects out-of-range values. */
    public static final class Builder {
        private final List<Path> roots = new ArrayList<>();
        private int maxDepth = DEFAULT_DEPTH;
        private int maxEntriesPerRoot = DEFAULT_ENTRIES;
        private ValidationProfile profile = ValidationProfile.STRICT;
        private boolean legacyFlatFiles = true;
        private boolean dotDirectories = true;
        private boolean acceptPartial;

        private Builder() {}

        /** Whether to search dot-directories other than version-control metadata (default true). */
        public Builder dotDirectories(boolean search) {
            this.dotDirectories = search;
            return this;
        }

        /** Whether an entry-bound overflow may yield a partial catalog instead of an error (default false). */
        public Builder acceptPartial(boolean accept) {
            this.acceptPartial = accept;
            return this;
        }

        /** Appends a root (lower precedence than those added before it). */
        public Builder root(Path root) {
            roots.add(Objects.requireNonNull(root, "root"));
            if (roots.size() > MAX_ROOTS) {
                throw range("at most " + MAX_ROOTS + " roots");
            }
            return this;
        }

        /** Appends roots in order. */
        public Builder roots(List<Path> more) {
            more.forEach(this::root);
            return this;
        }

        /** Sets the depth bound, {@value #MIN_DEPTH}–{@value #MAX_DEPTH}. */
        public Builder maxDepth(int depth) {
            if (depth < MIN_DEPTH || depth > MAX_DEPTH) {
                throw range("maxDepth must be " + MIN_DEPTH + " to " + MAX_DEPTH + ", was " + depth);
            }
            this.maxDepth = depth;
            return this;
        }

        /** Sets the entry bound per root, {@value #MIN_ENTRIES}–{@value #MAX_ENTRIES}. */
        public Builder maxEntriesPerRoot(int entries) {
            if (entries < MIN_ENTRIES || entries > MAX_ENTRIES) {
                throw range("maxEntriesPerRoot must be " + MIN_ENTRIES + " to " + MAX_ENTRIES + ", was " + entries);
            }
            this.maxEntriesPerRoot = entries;
            return this;
        }

        /** Sets the validation profile. */
        public Builder profile(ValidationProfile profile) {
            this.profile = Objects.requireNonNull(profile, "profile");
            return this;
        }

        /** Whether to load legacy flat {@code NAME.md} files found directly in a root. */
        public Builder legacyFlatFiles(boolean enabled) {
            this.legacyFlatFiles = enabled;
            return this;
        }

        /** The options; at least one root is required. */
        public DiscoveryOptions build() {
            if (roots.size() < MIN_ROOTS) {
                throw range("at least one root is required");
            }
            return new DiscoveryOptions(this);
        }

        private static InvalidValueException range(String message) {
            return new InvalidValueException(ErrorCode.LIMIT_OUT_OF_RANGE, message);
        }
    }
}
