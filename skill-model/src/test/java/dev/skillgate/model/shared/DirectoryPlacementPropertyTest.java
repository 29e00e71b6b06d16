package dev.skillgate.model.shared;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded random trees of directories (modes 0700…01777, some handed to another uid when running as
 * root) and links (absolute, relative, with {@code ..}, ending in {@code ..}, chains), and random paths through
 * them: the verdict of {@link DirectoryPlacement} agrees with the rule applied by an independent
 * oracle to the path the kernel resolves ({@code toRealPath}) — it never accepts a directory whose
 * resolved path breaks the rule, and never refuses one whose resolved path and link directories keep
 * it. Every seed is its own case, so a failure names the seed that reproduces it.
 */
@EnabledOnOs(OS.LINUX)
class DirectoryPlacementPropertyTest {
    private static final int OTHER_UID = 2_000_000_000 + 4_242;
    private static final int[] MODES = {0700, 0755, 0750, 0775, 0757, 0777, 01777, 01755, 01770};

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946})
    void theVerdictMatchesTheRuleOnTheResolvedPath(int seed) throws Exception {
        Random random = new Random(seed);
        boolean root = DirectoryPlacement.currentUid().equals(Optional.of(0));
        int me = DirectoryPlacement.currentUid().orElseThrow();
        Path base = Files.createTempDirectory(Path.of("/tmp"), "sg-prop-");
        try {
            List<Path> dirs = new ArrayList<>();
            dirs.add(base);
            List<Path> all = new ArrayList<>(dirs);
            for (int i = 0; i < 12; i++) {
                Path parent = dirs.get(random.nextInt(dirs.size()));
                Path d = Files.createDirectory(parent.resolve("d" + i));
                dirs.add(d);
                all.add(d);
            }
            // /tmp itself is a target too: a root-owned sticky directory, fine on the way, never as the end.
            List<Path> targets = new ArrayList<>(all);
            targets.add(base.getParent());
            for (int i = 0; i < 10; i++) {
                Path parent = dirs.get(random.nextInt(dirs.size()));
                Path target = targets.get(random.nextInt(targets.size()));
                Path link = parent.resolve("l" + i);
                Path value = switch (random.nextInt(4)) {
                    case 0 -> target;
                    case 1 -> parent.relativize(target);
                    case 2 -> Path.of("..").resolve(parent.getParent().relativize(target));
                    // Climbs back: the walk ends at a directory it first passed as an ancestor.
                    default -> Path.of(target.toString(), "..");
                };
                Files.createSymbolicLink(link, value.toString().isEmpty() ? Path.of(".") : value);
                all.add(link);
                targets.add(link);
            }
            // Modes and owners last, so that creating the tree never depends on them.
            for (Path d : dirs.subList(1, dirs.size())) {
                Files.setAttribute(d, "unix:mode", MODES[random.nextInt(MODES.length)]);
                if (root && random.nextInt(6) == 0) {
                    Files.setAttribute(d, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
                }
            }
            for (Path candidate : all) {
                Path probe = random.nextBoolean() ? candidate : candidate.resolve("missing");
                Optional<Diagnostic> verdict = DirectoryPlacement.check(probe, "data directory");
                Optional<String> oracle = oracle(probe, me, true);
                if (oracle.isPresent() && !oracle.get().equals("unknown")) {
                    assertThat(verdict)
                            .as("seed %d: %s breaks the rule on its resolved path (%s)", seed, probe, oracle.get())
                            .isPresent();
                }
                if (verdict.isPresent()) {
                    assertThat(verdict.get().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
                    assertThat(oracle.isPresent() || linkDirectoryBreaks(probe, me))
                            .as(
                                    "seed %d: %s refused (%s) though its resolved path keeps the rule",
                                    seed, probe, verdict)
                            .isTrue();
                }
            }
        } finally {
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor();
        }
    }

    /**
     * The rule on the resolved path, computed from {@code toRealPath} of the longest existing prefix:
     * empty when it holds, the broken component otherwise, "unknown" when the kernel cannot resolve
     * it (a loop, a dangling link in the middle).
     */
    private static Optional<String> oracle(Path probe, int me, boolean asData) throws IOException {
        Path existing = probe;
        while (existing != null && !Files.exists(existing)) {
            if (Files.isSymbolicLink(existing)) {
                return Optional.of("unknown");
            }
            existing = existing.getParent();
        }
        if (existing == null) {
            return Optional.of("unknown");
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            return Optional.of("unknown");
        }
        if (!Files.isDirectory(real)) {
            return Optional.empty();
        }
        boolean last = asData && existing.equals(probe);
        boolean belowSticky = false;
        List<Path> chain = new ArrayList<>();
        for (Path p = real; p != null; p = p.getParent()) {
            chain.add(0, p);
        }
        for (int i = 0; i < chain.size(); i++) {
            Path p = chain.get(i);
            Map<String, Object> a = Files.readAttributes(p, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode");
            int uid = (Integer) a.get("uid");
            boolean isLast = last && i == chain.size() - 1;
            if (uid != me && (isLast || belowSticky || uid != 0)) {
                return Optional.of(p + " owner " + uid);
            }
            if ((mode & 022) != 0) {
                if (isLast || (mode & 01000) == 0 || uid != 0) {
                    return Optional.of(p + " mode " + Integer.toOctalString(mode & 07777));
                }
                belowSticky = true;
            }
        }
        return Optional.empty();
    }

    /**
     * Whether a directory the kernel passes through while resolving the path breaks the rule: one
     * holding a link, or one a link's target goes through before a {@code ..} climbs out of it again
     * (its owner could swap what lies below). Then a refusal is right too.
     */
    private static boolean linkDirectoryBreaks(Path probe, int me) throws IOException {
        Path prefix = probe.getRoot();
        for (Path name : probe) {
            prefix = prefix.resolve(name);
            if (Files.isSymbolicLink(prefix)) {
                if (oracle(prefix.getParent(), me, false).isPresent()) {
                    return true;
                }
                Path target = Files.readSymbolicLink(prefix);
                Path joined = prefix.getParent().toRealPath().resolve(target);
                Path walked = joined.getRoot();
                for (Path part : joined) {
                    walked = walked.resolve(part);
                    if (!part.toString().equals("..")
                            && Files.isDirectory(walked)
                            && oracle(walked, me, false).isPresent()) {
                        return true;
                    }
                }
                if (linkDirectoryBreaks(joined.normalize(), me)) {
                    return true;
                }
            }
            if (!Files.exists(prefix, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
        }
        return false;
    }
}
