package dev.skillgate.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * Every exported public top-level type of a published module is marked with its apiguardian
 * {@code @API} status, the status is the one {@code docs/api-status.tsv} gives it, {@code STABLE} is
 * exactly the host API {@code docs/api.md} lists, and the annotation is compile-only (decisions 0630,
 * 0631). The fix for every failure here is {@code java .ci/ApiStatus.java} from the checkout root
 * (after editing the table if the status should differ), which the last test runs on a scratch
 * checkout.
 */
class ApiStatusTest {
    static final Pattern DECL = Pattern.compile(
            "(?m)^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)\\b");
    static final Pattern API = Pattern.compile("(?m)^@API\\(status = API\\.Status\\.(\\w+)");
    static final Pattern EXPORTS = Pattern.compile("\\bexports\\s+([\\w.]+)\\s*(?:to\\s+([^;]+))?;");

    /** A public top-level type of an exported package, with the status its source carries ("" if none). */
    record Marked(String module, String type, boolean qualified, String status, boolean imported) {}

    @Test
    void theToolFindsNothingToChange() throws Exception {
        Run run = tool(Checkout.ROOT, "--check");
        assertThat(run.exit())
                .as(
                        "java .ci/ApiStatus.java --check said:\n%s\nRun `java .ci/ApiStatus.java` from the checkout root.",
                        run.output())
                .isZero();
    }

    @Test
    void everyExportedPublicTypeOfAPublishedModuleCarriesItsMark() throws Exception {
        List<Marked> types = scan(Checkout.ROOT);
        assertThat(types).as("exported public types").hasSizeGreaterThan(150);
        List<String> unmarked = types.stream()
                .filter(t -> t.status().isEmpty() || !t.imported())
                .map(Marked::type)
                .toList();
        assertThat(unmarked)
                .as("types without @API(status = ...) and its import: run `java .ci/ApiStatus.java`")
                .isEmpty();
        Map<String, String> table = table(Checkout.ROOT);
        List<String> disagree = new ArrayList<>();
        for (Marked t : types) {
            String pkg = t.type().substring(0, t.type().lastIndexOf('.'));
            String wanted = table.getOrDefault(t.type(), table.get(pkg));
            if (!t.status().equals(wanted)) {
                disagree.add(t.type() + " is " + t.status() + ", the table says " + wanted);
            }
            if (t.qualified()) {
                assertThat(t.status())
                        .as(t.type() + " is in a qualified export")
                        .isEqualTo("INTERNAL");
            }
        }
        assertThat(disagree).as("run `java .ci/ApiStatus.java`").isEmpty();
    }

    @Test
    void stableIsExactlyTheHostApiThePageLists() throws Exception {
        Set<String> stable = new TreeSet<>();
        for (Marked t : scan(Checkout.ROOT)) {
            if (t.status().equals("STABLE")) {
                stable.add(t.type().substring(t.type().lastIndexOf('.') + 1));
            }
        }
        String page = Checkout.read("docs/api.md");
        Set<String> host = firstColumn(section(page, "## The host API"));
        assertThat(host).hasSizeBetween(8, 15);
        assertThat(stable).as("STABLE types vs the host API of docs/api.md").isEqualTo(host);

        // Every SPI the page names is public API (MAINTAINED or EXPERIMENTAL), never INTERNAL or STABLE.
        Map<String, Set<String>> bySimpleName = new LinkedHashMap<>();
        for (Marked t : scan(Checkout.ROOT)) {
            bySimpleName
                    .computeIfAbsent(t.type().substring(t.type().lastIndexOf('.') + 1), k -> new TreeSet<>())
                    .add(t.status());
        }
        Set<String> spis = firstColumn(section(page, "## The SPIs"));
        assertThat(spis).contains("ProcessSupervisor", "PolicyStore", "AuditSink", "ContractDialect");
        for (String spi : spis) {
            assertThat(bySimpleName.get(spi)).as(spi).isNotNull().isSubsetOf("MAINTAINED", "EXPERIMENTAL");
        }
        assertThat(page).contains("<!-- api-status:begin").contains("<!-- api-status:end -->");
    }

    @Test
    void theAnnotationIsCompileOnly() throws Exception {
        Element parent = Checkout.xml(Checkout.ROOT.resolve("pom.xml")).getDocumentElement();
        List<Element> declared = new ArrayList<>();
        declared.addAll(apiguardian(Checkout.children(parent, "dependencies").get(0)));
        declared.addAll(apiguardian(Checkout.children(
                        Checkout.children(parent, "dependencyManagement").get(0), "dependencies")
                .get(0)));
        assertThat(declared).hasSize(2);
        for (Element d : declared) {
            assertThat(Checkout.text(d, "scope")).as("apiguardian-api scope").isEqualTo("provided");
        }
        for (Path pom : Checkout.poms()) {
            if (!pom.equals(Checkout.ROOT.resolve("pom.xml"))) {
                assertThat(Files.readString(pom, StandardCharsets.UTF_8))
                        .as(Checkout.ROOT.relativize(pom) + " leaves apiguardian-api to the parent")
                        .doesNotContain("apiguardian");
            }
        }
        for (Marked t : scan(Checkout.ROOT)) {
            Path info = Checkout.ROOT.resolve(t.module()).resolve("src/main/java/module-info.java");
            assertThat(Files.readString(info, StandardCharsets.UTF_8))
                    .as(t.module() + "/module-info.java")
                    .contains("requires static org.apiguardian.api;")
                    .doesNotContain("requires org.apiguardian.api;")
                    .doesNotContain("requires transitive org.apiguardian.api;");
        }
    }

    @Test
    void aHostOnTheModulePathCompilesAndRunsWithoutTheAnnotationJar(@TempDir Path dir) throws Exception {
        Path model = Path.of(dev.skillgate.model.RunId.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        write(dir, "src/module-info.java", "module host { requires dev.skillgate.model; }\n");
        write(dir, "src/host/Main.java", """
                package host;

                public class Main {
                    public static void main(String[] args) throws Exception {
                        System.out.println(dev.skillgate.model.RunId.class
                                .getModule()
                                .getDescriptor()
                                .requires()
                                .stream()
                                .anyMatch(r -> r.name().equals("org.apiguardian.api")));
                        System.out.println(ModuleLayer.boot().findModule("org.apiguardian.api").isPresent());
                        System.out.println(dev.skillgate.model.RunId.random().toString().length());
                    }
                }
                """);
        Process javac = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
                        "--module-path",
                        model.toString(),
                        "-d",
                        dir.resolve("out").toString(),
                        dir.resolve("src/module-info.java").toString(),
                        dir.resolve("src/host/Main.java").toString())
                .redirectErrorStream(true)
                .start();
        javac.getOutputStream().close();
        String said = new String(javac.getInputStream().readNBytes(1 << 16), StandardCharsets.UTF_8);
        assertThat(javac.waitFor(5, TimeUnit.MINUTES)).isTrue();
        // javac warns about the absent annotation class (docs/api.md says what a -Werror host adds),
        // and compiles.
        assertThat(javac.exitValue()).as(said).isZero();
        assertThat(said).contains("org.apiguardian.api.API");

        Process p = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--module-path",
                        model + java.io.File.pathSeparator + dir.resolve("out"),
                        "--module",
                        "host/host.Main")
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readNBytes(1 << 16), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        // skill-model requires the annotation module statically: it is not resolved, and not needed.
        assertThat(out.lines().toList()).containsExactly("true", "false", "36");
    }

    @Test
    void theToolAnnotatesAScratchCheckoutAndASecondRunChangesNothing(@TempDir Path root) throws Exception {
        write(root, "pom.xml", """
                <project>
                  <artifactId>skillgate-parent</artifactId>
                  <version>9.8.7-SNAPSHOT</version>
                  <modules>
                    <module>m</module>
                    <module>unpublished</module>
                  </modules>
                </project>
                """);
        write(root, "m/pom.xml", "<project/>\n");
        write(root, "m/src/main/java/module-info.java", """
                /** M. */
                module a.m {
                    requires java.sql;

                    exports a.b;
                    // a comment that mentions exports a.commented;
                    exports a.c to
                            other.mod;
                }
                """);
        write(root, "m/src/main/java/a/b/Foo.java", """
                package a.b;

                import static java.util.Objects.requireNonNull;

                import java.util.List;
                import org.junit.Test;

                /** Foo, a public class. */
                @Deprecated
                public final class Foo {
                    public static class Inner {}
                }
                """);
        write(root, "m/src/main/java/a/b/Bar.java", """
                package a.b;

                /** Bar. */
                public interface Bar {}
                """);
        write(root, "m/src/main/java/a/b/Old.java", """
                package a.b;

                import org.apiguardian.api.API;

                /** Old. */
                @API(status = API.Status.EXPERIMENTAL, since = "0.0.1")
                public record Old(int x) {}
                """);
        String hidden = "package a.b;\n\nclass Hidden {}\n";
        write(root, "m/src/main/java/a/b/Hidden.java", hidden);
        write(root, "m/src/main/java/a/c/Sib.java", "package a.c;\n\npublic class Sib {}\n");
        write(
                root,
                "unpublished/pom.xml",
                "<project><properties><maven.deploy.skip>true</maven.deploy.skip></properties></project>\n");
        write(root, "unpublished/src/main/java/module-info.java", "module u {\n    exports u;\n}\n");
        String unpublished = "package u;\n\npublic class U {}\n";
        write(root, "unpublished/src/main/java/u/U.java", unpublished);
        write(root, "docs/api-status.tsv", """
                # a comment
                a.b\tMAINTAINED\tdefault
                a.b.Foo\tSTABLE\thost API
                a.b.Gone\tSTABLE\ta type that is no longer there
                """);
        write(
                root,
                "docs/api.md",
                "# API\n\n<!-- api-status:begin (generated) -->\nstale\n<!-- api-status:end -->\n\nafter\n");

        assertThat(tool(root, "--check").exit()).isEqualTo(1);
        assertThat(read(root, "m/src/main/java/a/b/Bar.java")).doesNotContain("@API"); // --check writes nothing

        Run first = tool(root);
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(read(root, "m/src/main/java/a/b/Foo.java")).isEqualTo("""
                package a.b;

                import static java.util.Objects.requireNonNull;

                import java.util.List;
                import org.apiguardian.api.API;
                import org.junit.Test;

                /** Foo, a public class. */
                @Deprecated
                @API(status = API.Status.STABLE, since = "9.8.7")
                public final class Foo {
                    public static class Inner {}
                }
                """);
        assertThat(read(root, "m/src/main/java/a/b/Bar.java")).isEqualTo("""
                package a.b;

                import org.apiguardian.api.API;

                /** Bar. */
                @API(status = API.Status.MAINTAINED, since = "9.8.7")
                public interface Bar {}
                """);
        assertThat(read(root, "m/src/main/java/a/b/Old.java"))
                .contains("@API(status = API.Status.MAINTAINED, since = \"0.0.1\")\npublic record Old");
        assertThat(read(root, "m/src/main/java/a/b/Hidden.java")).isEqualTo(hidden);
        assertThat(read(root, "m/src/main/java/a/c/Sib.java"))
                .contains("@API(status = API.Status.INTERNAL, since = \"9.8.7\")\npublic class Sib");
        assertThat(read(root, "unpublished/src/main/java/u/U.java")).isEqualTo(unpublished);
        assertThat(read(root, "m/src/main/java/module-info.java"))
                .contains("    requires java.sql;\n    requires static org.apiguardian.api;\n\n    exports a.b;");
        assertThat(read(root, "docs/api-status.tsv"))
                .contains(
                        "# a comment\n", "a.b\tMAINTAINED\tdefault\n", "a.b.Foo\tSTABLE\thost API\n", "a.c\tINTERNAL\t")
                .doesNotContain("a.b.Gone");
        assertThat(read(root, "docs/api.md"))
                .startsWith("# API\n\n<!-- api-status:begin (generated) -->\n")
                .contains("- `a.b` — STABLE: `Foo`; MAINTAINED: `Bar`, `Old`\n")
                .contains("- `a.c` (exported to `other.mod` only) — INTERNAL: `Sib`\n")
                .doesNotContain("stale")
                .endsWith("<!-- api-status:end -->\n\nafter\n");

        Map<String, String> after = snapshot(root);
        Run second = tool(root);
        assertThat(second.exit()).as(second.output()).isZero();
        assertThat(second.output()).isEmpty();
        assertThat(snapshot(root)).isEqualTo(after);
        assertThat(tool(root, "--check").exit()).isZero();

        // A qualified export is INTERNAL or the tool refuses (exit 2) and says why.
        write(root, "docs/api-status.tsv", read(root, "docs/api-status.tsv").replace("a.c\tINTERNAL", "a.c\tSTABLE"));
        Run refused = tool(root);
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.output()).contains("a.c.Sib is in a qualified export (to other.mod)");
    }

    // ---- helpers ----

    record Run(int exit, String output) {}

    static Run tool(Path root, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                Checkout.ROOT.resolve(".ci/ApiStatus.java").toString()));
        command.addAll(List.of(args));
        command.add(root.toString());
        Process p = new ProcessBuilder(command)
                .directory(root.toFile())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readNBytes(1 << 20);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the tool ends").isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** The published modules' exported public top-level types, read from module-info and the sources. */
    static List<Marked> scan(Path root) throws IOException {
        Element parent;
        try {
            parent = Checkout.xml(root.resolve("pom.xml")).getDocumentElement();
        } catch (Exception e) {
            throw new IOException(e);
        }
        List<Marked> out = new ArrayList<>();
        for (Element m : Checkout.children(Checkout.children(parent, "modules").get(0), "module")) {
            String module = m.getTextContent().strip();
            Path info = root.resolve(module).resolve("src/main/java/module-info.java");
            String pom = Files.readString(root.resolve(module).resolve("pom.xml"), StandardCharsets.UTF_8);
            if (!Files.isRegularFile(info) || pom.contains("<maven.deploy.skip>true</maven.deploy.skip>")) {
                continue;
            }
            String code = Files.readString(info, StandardCharsets.UTF_8)
                    .replaceAll("(?s)/\\*.*?\\*/", "")
                    .replaceAll("//[^\n]*", "");
            Matcher e = EXPORTS.matcher(code);
            while (e.find()) {
                Path dir = root.resolve(module)
                        .resolve("src/main/java")
                        .resolve(e.group(1).replace('.', '/'));
                List<Path> files;
                try (Stream<Path> s = Files.list(dir)) {
                    files = s.filter(f -> f.toString().endsWith(".java"))
                            .sorted()
                            .toList();
                }
                for (Path f : files) {
                    String name = f.getFileName().toString().replaceFirst("\\.java$", "");
                    String src = Files.readString(f, StandardCharsets.UTF_8);
                    Matcher d = DECL.matcher(src);
                    if (!d.find() || !d.group(1).equals(name)) {
                        continue;
                    }
                    Matcher a = API.matcher(src.substring(0, d.start()));
                    String status = "";
                    while (a.find()) {
                        status = a.group(1);
                    }
                    out.add(new Marked(
                            module,
                            e.group(1) + "." + name,
                            e.group(2) != null,
                            status,
                            src.contains("\nimport org.apiguardian.api.API;\n")));
                }
            }
        }
        return out;
    }

    static Map<String, String> table(Path root) throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(root.resolve("docs/api-status.tsv"), StandardCharsets.UTF_8)) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] f = line.split("\t");
                rows.put(f[0], f[1]);
            }
        }
        return rows;
    }

    static String section(String page, String heading) {
        int start = page.indexOf("\n" + heading);
        assertThat(start).as(heading).isPositive();
        int end = page.indexOf("\n## ", start + 1);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    /** The names in backticks in the first column of the section's table rows (header excluded). */
    static Set<String> firstColumn(String section) {
        Set<String> names = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `(\\w+)`").matcher(section);
        while (row.find()) {
            names.add(row.group(1));
        }
        return names;
    }

    static List<Element> apiguardian(Element dependencies) {
        return Checkout.children(dependencies, "dependency").stream()
                .filter(d -> Checkout.text(d, "artifactId").equals("apiguardian-api"))
                .toList();
    }

    static void write(Path root, String relative, String text) throws IOException {
        Path file = root.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static String read(Path root, String relative) throws IOException {
        return Files.readString(root.resolve(relative), StandardCharsets.UTF_8);
    }

    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.filter(Files::isRegularFile).sorted().toList()) {
                files.put(root.relativize(p).toString(), Files.readString(p, StandardCharsets.UTF_8));
            }
        }
        return files;
    }
}
