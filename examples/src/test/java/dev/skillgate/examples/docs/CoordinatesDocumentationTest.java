package dev.skillgate.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Element;

/**
 * The Maven and Gradle coordinates the adoption pages show go through {@code skill-bom}, at the
 * version this build releases, and name only artifacts the BOM manages (decision 0623).
 */
class CoordinatesDocumentationTest {

    /** The version the pages name: this build's version without {@code -SNAPSHOT}. */
    static String releaseVersion() throws Exception {
        String version =
                Checkout.text(Checkout.xml(Checkout.ROOT.resolve("pom.xml")).getDocumentElement(), "version");
        return version.replaceFirst("-SNAPSHOT$", "");
    }

    static Set<String> bomArtifacts() throws Exception {
        Element bom = Checkout.xml(Checkout.ROOT.resolve("skill-bom/pom.xml")).getDocumentElement();
        Element managed = Checkout.children(
                        Checkout.children(bom, "dependencyManagement").get(0), "dependencies")
                .get(0);
        return Checkout.children(managed, "dependency").stream()
                .map(d -> Checkout.text(d, "artifactId"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "docs/engine.md", "docs/testkit.md"})
    void thePageShowsMavenAndGradleCoordinatesThroughTheBom(String page) throws Exception {
        List<Checkout.Block> blocks = Checkout.blocks(Checkout.ROOT.resolve(page));
        List<Checkout.Block> maven = blocks.stream()
                .filter(b -> b.marker().equals("coordinates: maven"))
                .toList();
        List<Checkout.Block> gradle = blocks.stream()
                .filter(b -> b.marker().equals("coordinates: gradle"))
                .toList();
        assertThat(maven).as(page + ": a <!-- coordinates: maven --> block").hasSize(1);
        assertThat(gradle).as(page + ": a <!-- coordinates: gradle --> block").hasSize(1);
        assertThat(problems(maven.get(0), gradle.get(0), releaseVersion(), bomArtifacts()))
                .isEmpty();
    }

    @Test
    void aWrongVersionOrAnArtifactTheBomDoesNotManageIsCaught() throws Exception {
        Path page = Checkout.ROOT.resolve("README.md");
        Checkout.Block maven = new Checkout.Block(
                page,
                1,
                "xml",
                "coordinates: maven",
                "<dependencyManagement><dependencies><dependency><groupId>dev.skillgate</groupId>"
                        + "<artifactId>skill-bom</artifactId><version>0.0.9</version><type>pom</type>"
                        + "<scope>import</scope></dependency></dependencies></dependencyManagement>"
                        + "<dependencies><dependency><groupId>dev.skillgate</groupId>"
                        + "<artifactId>skill-engines</artifactId></dependency></dependencies>");
        Checkout.Block gradle = new Checkout.Block(
                page, 2, "kotlin", "coordinates: gradle", "implementation(\"dev.skillgate:skill-engine:0.1.0\")\n");
        assertThat(problems(maven, gradle, "0.1.0", Set.of("skill-engine", "testkit")))
                .anyMatch(p -> p.contains("no import of dev.skillgate:skill-bom:0.1.0"))
                .anyMatch(p -> p.contains("skill-engines"))
                .anyMatch(p -> p.contains("platform"))
                .anyMatch(p -> p.contains("without a version"));
    }

    private static final Pattern GRADLE_COORDINATE = Pattern.compile("\"(dev\\.skillgate:[^\"]+)\"");

    static List<String> problems(Checkout.Block maven, Checkout.Block gradle, String version, Set<String> managed)
            throws Exception {
        List<String> problems = new ArrayList<>();
        Element root = Checkout.xml("<project>" + maven.body() + "</project>").getDocumentElement();
        List<Element> imports = Checkout.children(root, "dependencyManagement").stream()
                .flatMap(dm -> Checkout.children(dm, "dependencies").stream())
                .flatMap(ds -> Checkout.children(ds, "dependency").stream())
                .toList();
        boolean bomImported = imports.stream()
                .anyMatch(d -> Checkout.text(d, "groupId").equals("dev.skillgate")
                        && Checkout.text(d, "artifactId").equals("skill-bom")
                        && Checkout.text(d, "version").equals(version)
                        && Checkout.text(d, "type").equals("pom")
                        && Checkout.text(d, "scope").equals("import"));
        if (!bomImported) {
            problems.add(maven.where() + ": no import of dev.skillgate:skill-bom:" + version + " (pom, import)");
        }
        List<Element> used = Checkout.children(root, "dependencies").stream()
                .flatMap(ds -> Checkout.children(ds, "dependency").stream())
                .toList();
        if (used.isEmpty()) {
            problems.add(maven.where() + ": no dependency uses the BOM");
        }
        for (Element d : used) {
            String artifact = Checkout.text(d, "artifactId");
            if (!Checkout.text(d, "groupId").equals("dev.skillgate") || !managed.contains(artifact)) {
                problems.add(maven.where() + ": " + artifact + " is not managed by skill-bom");
            }
            if (!Checkout.text(d, "version").isEmpty()) {
                problems.add(maven.where() + ": " + artifact + " repeats a version the BOM manages");
            }
        }
        String g = gradle.body();
        if (!g.contains("platform(\"dev.skillgate:skill-bom:" + version + "\")")) {
            problems.add(gradle.where() + ": no platform(\"dev.skillgate:skill-bom:" + version + "\")");
        }
        Matcher m = GRADLE_COORDINATE.matcher(g);
        while (m.find()) {
            String[] parts = m.group(1).split(":");
            if (parts[1].equals("skill-bom")) {
                continue;
            }
            if (!managed.contains(parts[1])) {
                problems.add(gradle.where() + ": " + parts[1] + " is not managed by skill-bom");
            }
            if (parts.length != 2) {
                problems.add(
                        gradle.where() + ": " + m.group(1) + " should come without a version (the platform sets it)");
            }
        }
        return problems;
    }
}
