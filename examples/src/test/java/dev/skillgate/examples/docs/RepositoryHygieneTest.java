package dev.skillgate.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What a stranger needs to adopt and a registry needs to publish: the licence, notice, security
 * policy and changelog; the same Maven Central metadata in the parent and the BOM; a BOM that
 * manages exactly the published modules; the release and signing profiles; and no POM that pins the
 * tests to one machine's {@code node} (decisions 0620–0622).
 */
class RepositoryHygieneTest {
    /** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt. */
    static final String APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";

    @Test
    void theLicenceIsTheFullApacheTwoText() throws Exception {
        byte[] licence = Files.readAllBytes(Checkout.ROOT.resolve("LICENSE"));
        String sha =
                HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(licence));
        assertThat(sha).as("LICENSE is byte for byte the Apache License 2.0").isEqualTo(APACHE_2_SHA256);
        assertThat(Checkout.read("NOTICE")).startsWith("Skillgate\n").contains("Apache License, Version 2.0");
    }

    @Test
    void theSecurityPolicySaysHowToReportAndLinksTheThreatModel() throws Exception {
        String security = Checkout.read("SECURITY.md");
        assertThat(security)
                .contains("## Reporting a vulnerability")
                .contains("## In scope")
                .contains("## Out of scope")
                .contains("/security/advisories/new");
        Set<String> anchors = anchors(Checkout.read("docs/threat-model.md"));
        Matcher links = Pattern.compile("\\(docs/threat-model\\.md(#[^)]*)?\\)").matcher(security);
        int n = 0;
        while (links.find()) {
            n++;
            if (links.group(1) != null) {
                assertThat(anchors)
                        .as("threat-model anchors")
                        .contains(links.group(1).substring(1));
            }
        }
        assertThat(n).as("links to the threat model").isGreaterThanOrEqualTo(2);
    }

    @Test
    void theChangelogKeepsAChangelogsShape() throws Exception {
        List<String> lines = Checkout.read("CHANGELOG.md").lines().toList();
        assertThat(lines.get(0)).isEqualTo("# Changelog");
        assertThat(String.join("\n", lines)).contains("https://keepachangelog.com/en/1.1.0/");
        List<String> releases = lines.stream().filter(l -> l.startsWith("## ")).toList();
        assertThat(releases).first().isEqualTo("## [Unreleased]");
        assertThat(releases)
                .allMatch(l ->
                        l.equals("## [Unreleased]") || l.matches("## \\[\\d+\\.\\d+\\.\\d+] - \\d{4}-\\d{2}-\\d{2}"));
        Set<String> groups = Set.of("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security");
        assertThat(lines.stream().filter(l -> l.startsWith("### ")).map(l -> l.substring(4)))
                .isNotEmpty()
                .allMatch(groups::contains);
    }

    @Test
    void theParentAndTheBomCarryTheSameMavenCentralMetadata() throws Exception {
        Element parent = Checkout.xml(Checkout.ROOT.resolve("pom.xml")).getDocumentElement();
        Element bom = Checkout.xml(Checkout.ROOT.resolve("skill-bom/pom.xml")).getDocumentElement();
        for (Element pom : List.of(parent, bom)) {
            assertThat(Checkout.text(pom, "name")).isNotEmpty();
            assertThat(Checkout.text(pom, "description")).isNotEmpty();
            assertThat(Checkout.text(pom, "url")).startsWith("https://");
            assertThat(Checkout.text(pom, "licenses", "license", "name")).isEqualTo("Apache-2.0");
            assertThat(Checkout.text(pom, "developers", "developer", "name")).isNotEmpty();
            assertThat(Checkout.text(pom, "scm", "connection")).startsWith("scm:git:");
            assertThat(Checkout.text(pom, "scm", "developerConnection")).startsWith("scm:git:");
            assertThat(Checkout.text(pom, "scm", "url")).startsWith("https://");
            assertThat(Checkout.text(pom, "issueManagement", "url")).startsWith("https://");
        }
        for (String[] path : new String[][] {
            {"url"},
            {"licenses", "license", "url"},
            {"developers", "developer", "name"},
            {"scm", "connection"},
            {"scm", "developerConnection"},
            {"scm", "url"},
            {"issueManagement", "url"}
        }) {
            assertThat(Checkout.text(bom, path)).as(String.join("/", path)).isEqualTo(Checkout.text(parent, path));
        }
        // Children inherit the URLs unchanged (Maven would otherwise append each artifactId).
        assertThat(parent.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
        Element scm = Checkout.children(parent, "scm").get(0);
        assertThat(scm.getAttribute("child.scm.url.inherit.append.path")).isEqualTo("false");
        assertThat(scm.getAttribute("child.scm.connection.inherit.append.path")).isEqualTo("false");
        assertThat(scm.getAttribute("child.scm.developerConnection.inherit.append.path"))
                .isEqualTo("false");
    }

    @Test
    void theBomManagesExactlyThePublishedModules() throws Exception {
        Element parent = Checkout.xml(Checkout.ROOT.resolve("pom.xml")).getDocumentElement();
        Set<String> published = new TreeSet<>();
        for (Element module :
                Checkout.children(Checkout.children(parent, "modules").get(0), "module")) {
            Path pom = Checkout.ROOT.resolve(module.getTextContent().strip()).resolve("pom.xml");
            String text = Files.readString(pom, StandardCharsets.UTF_8);
            Element project = Checkout.xml(pom).getDocumentElement();
            String artifact = Checkout.text(project, "artifactId");
            boolean skipped = text.contains("<maven.deploy.skip>true</maven.deploy.skip>")
                    || Pattern.compile(
                                    "<artifactId>maven-deploy-plugin</artifactId>\\s*<configuration>\\s*<skip>true</skip>")
                            .matcher(text)
                            .find();
            if (!skipped && !artifact.equals("skill-bom")) {
                published.add(artifact);
            }
            if (!skipped && !Checkout.text(project, "packaging").equals("pom")) {
                assertThat(text)
                        .as(artifact + " is published: -Prelease must build its sources and javadoc jars")
                        .doesNotContain("<maven.javadoc.skip>true")
                        .doesNotContain("<maven.source.skip>true");
            }
        }
        assertThat(published).contains("skill-engine", "testkit", "skill-test-fixtures");
        assertThat(CoordinatesDocumentationTest.bomArtifacts()).isEqualTo(published);
    }

    @Test
    void theReleaseProfileBuildsSourcesAndJavadocAndSignsOnlyWithAKey() throws Exception {
        String parent = Checkout.read("pom.xml");
        Element project = Checkout.xml(Checkout.ROOT.resolve("pom.xml")).getDocumentElement();
        assertThat(Checkout.text(project, "properties", "skillgate.sign.skip")).isEqualTo("true");
        assertThat(Checkout.text(project, "properties", "gpg-plugin.version")).matches("\\d+\\.\\d+\\.\\d+");
        List<String> profiles = new ArrayList<>();
        for (Element profile :
                Checkout.children(Checkout.children(project, "profiles").get(0), "profile")) {
            String id = Checkout.text(profile, "id");
            profiles.add(id);
            if (id.startsWith("sign-")) {
                assertThat(Checkout.text(profile, "activation", "property", "name"))
                        .isIn("env.MAVEN_GPG_KEY", "gpg.keyname");
                assertThat(Checkout.text(profile, "properties", "skillgate.sign.skip"))
                        .isEqualTo("false");
            }
        }
        assertThat(profiles).contains("release", "sign-with-key-from-environment", "sign-with-gpg-keyname");
        String release = parent.substring(parent.indexOf("<id>release</id>"));
        assertThat(release)
                .contains("<artifactId>maven-source-plugin</artifactId>")
                .contains("<artifactId>maven-javadoc-plugin</artifactId>")
                .contains("<failOnError>true</failOnError>")
                .contains("<artifactId>maven-gpg-plugin</artifactId>")
                .contains("<skip>${skillgate.sign.skip}</skip>");
        String bom = Checkout.read("skill-bom/pom.xml");
        assertThat(bom)
                .contains("<id>release</id>")
                .contains("<name>env.MAVEN_GPG_KEY</name>")
                .contains("<version>" + Checkout.text(project, "properties", "gpg-plugin.version") + "</version>");
    }

    @Test
    void noPomPinsTheTestsToOneMachinesNode() throws Exception {
        List<String> offenders = new ArrayList<>();
        for (Path pom : Checkout.poms()) {
            String text = Files.readString(pom, StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("/(usr/)?(local/)?bin/node\\b").matcher(text);
            if (m.find()) {
                offenders.add(Checkout.ROOT.relativize(pom) + ": " + m.group());
            }
        }
        assertThat(offenders)
                .as("the tests find node on PATH or through -Dskillgate.test.node")
                .isEmpty();
        assertThat(Checkout.poms()).hasSizeGreaterThanOrEqualTo(14);
    }

    @Test
    void theNodePropertyIsReadInOnePlaceOnly() throws Exception {
        List<String> readers = new ArrayList<>();
        try (java.util.stream.Stream<Path> all = Files.walk(Checkout.ROOT)) {
            for (Path source : all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !Checkout.ROOT.relativize(p).toString().contains("target/"))
                    .toList()) {
                if (Files.readString(source, StandardCharsets.UTF_8).contains("getProperty(\"skillgate.test.node\"")) {
                    readers.add(Checkout.ROOT.relativize(source).toString());
                }
            }
        }
        assertThat(readers)
                .as(
                        "read skillgate.test.node only through TestNodeBinary, which falls back to PATH, never to a fixed path")
                .isEmpty();
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
    static Set<String> anchors(String markdown) {
        return markdown.lines()
                .filter(l -> l.startsWith("#"))
                .map(l -> l.replaceFirst("^#+\\s*", "")
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9 _-]", "")
                        .replace(' ', '-'))
                .collect(Collectors.toSet());
    }
}
