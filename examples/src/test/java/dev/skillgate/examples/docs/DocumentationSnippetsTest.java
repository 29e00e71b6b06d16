package dev.skillgate.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java example in README.md and docs/ is a region of a real test source that the build
 * compiles and runs, so a stale example fails the build (decision 0623).
 *
 * <p>A {@code ```java} block must sit right under one of:
 *
 * <ul>
 *   <li>{@code <!-- snippet: MODULE/src/test/java/…/File.java#NAME -->}: its text equals the lines
 *       between {@code // snippet:begin NAME} and {@code // snippet:end NAME} in that file, compared
 *       token by token (runs of white space are one space: the page may align comments, the source
 *       is formatted by Spotless);
 *   <li>{@code <!-- listing: WHY -->}: a shape to read, not code to copy (an SPI's declarations).
 * </ul>
 */
class DocumentationSnippetsTest {
    private static final Pattern SNIPPET = Pattern.compile("snippet: (\\S+\\.java)#(\\S+)");
    private static final Pattern BEGIN = Pattern.compile("^\\s*// snippet:begin (\\S+).*$");
    private static final Pattern END = Pattern.compile("^\\s*// snippet:end (\\S+).*$");

    @Test
    void everyJavaExampleIsARegionOfATestThatRunsOrAMarkedListing() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path page : Checkout.pages()) {
            for (Checkout.Block block : Checkout.blocks(page)) {
                if (!block.language().equals("java")) {
                    continue;
                }
                checked++;
                problems.addAll(check(block));
            }
        }
        assertThat(problems).as("stale or unmarked Java examples").isEmpty();
        assertThat(checked).as("Java examples found").isGreaterThanOrEqualTo(14);
    }

    @Test
    void everySnippetRegionIsShownOnSomePage() throws IOException {
        Set<String> shown = new TreeSet<>();
        for (Path page : Checkout.pages()) {
            for (Checkout.Block block : Checkout.blocks(page)) {
                Matcher m = SNIPPET.matcher(block.marker());
                if (m.matches()) {
                    shown.add(m.group(1) + "#" + m.group(2));
                }
            }
        }
        Set<String> regions = new TreeSet<>();
        try (Stream<Path> all = Files.walk(Checkout.ROOT)) {
            for (Path source : all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/test/java/"))
                    .toList()) {
                for (String line : Files.readAllLines(source, StandardCharsets.UTF_8)) {
                    Matcher m = BEGIN.matcher(line);
                    if (m.matches()) {
                        regions.add(Checkout.ROOT.relativize(source) + "#" + m.group(1));
                    }
                }
            }
        }
        assertThat(shown).as("regions the pages show").containsAll(regions);
    }

    @Test
    void aChangedTokenIsCaughtButRealignedWhiteSpaceIsNot() {
        String source = "try (Log log = Log.open(dir)) {\n    log.approve(scope); // durable\n}\n";
        assertThat(sameTokens(source, "try (Log log = Log.open(dir)) {\n  log.approve(scope);        // durable\n}"))
                .isTrue();
        assertThat(sameTokens(source, "try (Log log = Log.open(dir)) {\n    log.revoke(scope); // durable\n}"))
                .isFalse();
        assertThat(sameTokens(source, "try (Log log = Log.open(dir)) {\n    log.approve(scope);\n}"))
                .as("comments are part of the example")
                .isFalse();
    }

    /** What is wrong with one Java block; empty when it is a current snippet or a listing. */
    static List<String> check(Checkout.Block block) throws IOException {
        if (block.marker().startsWith("listing:") && block.marker().length() > "listing:".length() + 3) {
            return List.of();
        }
        Matcher m = SNIPPET.matcher(block.marker());
        if (!m.matches()) {
            return List.of(
                    block.where() + ": a ```java block needs <!-- snippet: PATH#NAME --> or <!-- listing: WHY -->"
                            + " on the line before it");
        }
        String path = m.group(1);
        if (!path.contains("/src/test/java/")) {
            return List.of(block.where() + ": " + path + " is not a test source, so nothing runs it");
        }
        Path source = Checkout.ROOT.resolve(path);
        if (!Files.isRegularFile(source)) {
            return List.of(block.where() + ": " + path + " does not exist");
        }
        Optional<String> region = region(Files.readAllLines(source, StandardCharsets.UTF_8), m.group(2));
        if (region.isEmpty()) {
            return List.of(block.where() + ": no region '" + m.group(2) + "' (or not exactly one) in " + path);
        }
        if (!sameTokens(region.get(), block.body())) {
            return List.of(block.where() + ": differs from " + path + "#" + m.group(2) + "; the source says:\n"
                    + region.get());
        }
        return List.of();
    }

    /** The lines of region {@code name}, without marker lines of other regions; empty unless exactly one. */
    static Optional<String> region(List<String> lines, String name) {
        StringBuilder text = null;
        int found = 0;
        boolean inside = false;
        for (String line : lines) {
            Matcher begin = BEGIN.matcher(line);
            Matcher end = END.matcher(line);
            if (begin.matches()) {
                if (begin.group(1).equals(name)) {
                    found++;
                    inside = true;
                    text = new StringBuilder();
                }
                continue;
            }
            if (end.matches()) {
                if (end.group(1).equals(name)) {
                    inside = false;
                }
                continue;
            }
            if (inside) {
                text.append(line).append('\n');
            }
        }
        return found == 1 && !inside ? Optional.of(text.toString()) : Optional.empty();
    }

    static boolean sameTokens(String a, String b) {
        return a.strip().replaceAll("\\s+", " ").equals(b.strip().replaceAll("\\s+", " "));
    }
}
