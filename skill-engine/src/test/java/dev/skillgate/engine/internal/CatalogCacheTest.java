package dev.skillgate.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.SkillDiscovery;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate's catalog (decision 0805) against a tree that changes under it: every answer equals a
 * fresh walk's (location and description) for skills added, removed, renamed and swapped for
 * another directory of the same name with the modification times restored, at the root and below
 * it; an unchanged tree is not walked again; a shadowing skill elsewhere is seen within the
 * maximum age.
 */
class CatalogCacheTest {
    private static final Duration MARGIN = Duration.ofMillis(100);
    private static final long SETTLE_MILLIS = 180;

    @TempDir
    Path tmp;

    private Path root;
    /** Outside the root, on the same file system: where replacements are prepared. */
    private Path staging;

    @org.junit.jupiter.api.BeforeEach
    void dirs() throws IOException {
        root = Files.createDirectories(tmp.resolve("root"));
        staging = Files.createDirectories(tmp.resolve("staging"));
    }

    private SkillCatalogCache cache(Duration maxAge) {
        return new SkillCatalogCache(
                () -> SkillDiscovery.discover(DiscoveryOptions.of(List.of(root))), List.of(root), MARGIN, maxAge);
    }

    private SkillCatalogCache cache() {
        return cache(Duration.ofHours(1));
    }

    private static Path skill(Path parent, String dirName, String name, String description) throws IOException {
        Path dir = Files.createDirectories(parent.resolve(dirName));
        Files.writeString(
                dir.resolve("SKILL.md"),
                "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n",
                StandardCharsets.UTF_8);
        return dir;
    }

    private Optional<DiscoveredSkill> fresh(String name) {
        return SkillDiscovery.discover(DiscoveryOptions.of(List.of(root))).skills().stream()
                .filter(s -> s.name().equals(name))
                .findFirst();
    }

    private static String seen(Optional<DiscoveredSkill> s) {
        return s.map(d -> d.location() + " | " + d.description()).orElse("(none)");
    }

    private void assertSameAsFresh(SkillCatalogCache cache, String name) {
        assertThat(seen(cache.locate(name))).as(name).isEqualTo(seen(fresh(name)));
    }

    private static void settle() throws InterruptedException {
        Thread.sleep(SETTLE_MILLIS);
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }

    /** Replaces {@code dir} by {@code replacement} (renamed over it) and restores both mtimes. */
    private static void swapRestoringTimes(Path dir, Path replacement) throws IOException {
        FileTime parentTime = Files.getLastModifiedTime(dir.getParent());
        FileTime dirTime = Files.getLastModifiedTime(dir);
        Path away = dir.resolveSibling(dir.getFileName() + ".old");
        Files.move(dir, away);
        Files.move(replacement, dir);
        deleteTree(away);
        Files.setLastModifiedTime(dir, dirTime);
        Files.setLastModifiedTime(dir.getParent(), parentTime);
    }

    @Test
    void anUnchangedTreeIsWalkedOnceWhateverItHolds() throws Exception {
        for (int i = 0; i < 200; i++) {
            skill(root, "s-" + i, "s-" + i, "skill " + i);
        }
        settle();
        SkillCatalogCache cache = cache();
        for (int i = 0; i < 200; i += 7) {
            assertSameAsFresh(cache, "s-" + i);
        }
        assertThat(cache.walks()).isEqualTo(1);
    }

    @Test
    void aSkillAddedRemovedOrRenamedIsSeen() throws Exception {
        skill(root, "keep", "keep", "kept");
        Path gone = skill(root, "gone", "gone", "to be removed");
        Path renamed = skill(root, "old-name", "old-name", "to be renamed");
        settle();
        SkillCatalogCache cache = cache();
        assertSameAsFresh(cache, "gone");
        assertSameAsFresh(cache, "old-name");

        deleteTree(gone);
        Files.move(renamed, root.resolve("new-name"));
        Files.writeString(
                root.resolve("new-name").resolve("SKILL.md"), "---\nname: new-name\ndescription: renamed\n---\n");
        skill(root, "added", "added", "new");
        assertThat(cache.locate("gone")).isEmpty();
        assertThat(cache.locate("old-name")).isEmpty();
        assertSameAsFresh(cache, "new-name");
        assertSameAsFresh(cache, "added");
        assertSameAsFresh(cache, "keep");
    }

    @Test
    void aDirectorySwappedForAnotherOfTheSameNameWithItsTimesRestoredIsSeen() throws Exception {
        Path dir = skill(root, "swapped", "swapped", "the original");
        Path replacement = skill(staging, "swapped", "swapped", "the replacement");
        Path other = skill(staging, "renaming", "someone-else", "claims another name");
        Path second = skill(root, "second", "second", "the original second");
        settle();
        SkillCatalogCache cache = cache();
        assertThat(cache.locate("swapped").orElseThrow().description()).isEqualTo("the original");
        assertThat(cache.locate("second").orElseThrow().description()).isEqualTo("the original second");

        swapRestoringTimes(dir, replacement);
        assertThat(cache.locate("swapped").orElseThrow().description()).isEqualTo("the replacement");
        assertSameAsFresh(cache, "swapped");

        settle();
        swapRestoringTimes(second, other);
        assertThat(cache.locate("second"))
                .as("the directory now declares another name")
                .isEmpty();
        assertSameAsFresh(cache, "someone-else");
    }

    @Test
    void aNestedSkillSwappedBelowAnUnchangedRootIsSeen() throws Exception {
        Path group = Files.createDirectories(root.resolve("group"));
        Path dir = skill(group, "deep", "deep", "the original");
        Path replacement = skill(staging, "deep", "deep", "the replacement");
        settle();
        SkillCatalogCache cache = cache();
        FileTime rootTime = Files.getLastModifiedTime(root);
        assertThat(cache.locate("deep").orElseThrow().description()).isEqualTo("the original");

        swapRestoringTimes(dir, replacement);
        Files.setLastModifiedTime(root, rootTime);
        assertThat(cache.locate("deep").orElseThrow().description()).isEqualTo("the replacement");
    }

    @Test
    void aSkillFileEditedInPlaceIsSeen() throws Exception {
        Path dir = skill(root, "edited", "edited", "before");
        settle();
        SkillCatalogCache cache = cache();
        assertThat(cache.locate("edited").orElseThrow().description()).isEqualTo("before");
        FileTime fileTime = Files.getLastModifiedTime(dir.resolve("SKILL.md"));
        // Same length, same mtime restored: only the change time tells.
        Files.writeString(dir.resolve("SKILL.md"), "---\nname: edited\ndescription: after!\n---\n# edited\n");
        Files.setLastModifiedTime(dir.resolve("SKILL.md"), fileTime);
        assertThat(cache.locate("edited").orElseThrow().description()).isEqualTo("after!");
    }

    @Test
    void aShadowingSkillElsewhereInTheTreeIsSeenWithinTheMaximumAge() throws Exception {
        Files.createDirectories(root.resolve("a-group"));
        skill(root, "target", "target", "the first winner");
        settle();
        SkillCatalogCache cache = cache(Duration.ofMillis(300));
        assertThat(cache.locate("target").orElseThrow().description()).isEqualTo("the first winner");
        // Earlier in walk order, below a directory that already existed: the root does not change.
        skill(root.resolve("a-group"), "target", "target", "the shadowing one");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String seen = "";
        while (System.nanoTime() < deadline) {
            seen = cache.locate("target").orElseThrow().description();
            if (seen.equals("the shadowing one")) {
                break;
            }
            Thread.sleep(50);
        }
        assertThat(seen).isEqualTo("the shadowing one");
        assertSameAsFresh(cache, "target");
    }

    @Test
    void randomChangesAlwaysAnswerAsAFreshWalk() throws Exception {
        Random random = new Random(23);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            names.add("r-" + i);
        }
        // After every r-* in walk order: a skill below it can only be shadowed through the root.
        Files.createDirectories(root.resolve("zz-nest"));
        settle();
        SkillCatalogCache cache = cache();
        for (int round = 0; round < 25; round++) {
            String name = names.get(random.nextInt(names.size()));
            Path parent = random.nextBoolean() ? root : root.resolve("zz-nest");
            Path dir = parent.resolve(name);
            switch (random.nextInt(4)) {
                case 0 -> {
                    if (!Files.exists(dir)) {
                        skill(parent, name, name, "added in round " + round);
                    }
                }
                case 1 -> {
                    if (Files.exists(dir)) {
                        deleteTree(dir);
                    }
                }
                case 2 -> {
                    if (Files.exists(dir)) {
                        String to = names.get(random.nextInt(names.size()));
                        if (!Files.exists(parent.resolve(to))) {
                            Files.move(dir, parent.resolve(to));
                        }
                    }
                }
                default -> {
                    if (Files.exists(dir)) {
                        String declared = random.nextBoolean() ? name : names.get(random.nextInt(names.size()));
                        Path replacement = skill(staging, "next-" + round, declared, "swapped in round " + round);
                        swapRestoringTimes(dir, replacement);
                    }
                }
            }
            for (String n : names) {
                assertSameAsFresh(cache, n);
            }
            if (round % 5 == 0) {
                settle();
                for (String n : names) {
                    assertSameAsFresh(cache, n);
                }
            }
        }
    }
}
