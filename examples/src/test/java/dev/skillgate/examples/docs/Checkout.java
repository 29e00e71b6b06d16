package dev.skillgate.examples.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The checkout the build runs in (the parent of this module), its pages and its POMs. */
final class Checkout {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private Checkout() {}

    static String read(String relative) throws IOException {
        return Files.readString(ROOT.resolve(relative), StandardCharsets.UTF_8);
    }

    /** README.md and every page under docs/ (decision records included). */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** One fenced block of a page, with the HTML comment on the line before it, if any. */
    record Block(Path page, int line, String language, String marker, String body) {
        String where() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    private static final Pattern COMMENT = Pattern.compile("<!--\\s*(.*?)\\s*-->");

    static List<Block> blocks(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("```") || line.equals("```")) {
                continue;
            }
            String language = line.substring(3).strip();
            int start = i;
            StringBuilder body = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                body.append(lines.get(i)).append('\n');
            }
            String marker = "";
            if (start > 0) {
                Matcher m = COMMENT.matcher(lines.get(start - 1).strip());
                if (m.matches()) {
                    marker = m.group(1);
                }
            }
            blocks.add(new Block(page, start + 1, language, marker, body.toString()));
        }
        return blocks;
    }

    /** Every {@code pom.xml} of the checkout outside build output. */
    static List<Path> poms() throws IOException {
        try (Stream<Path> all = Files.walk(ROOT)) {
            return all.filter(p -> !ROOT.relativize(p).toString().startsWith(".git"))
                    .filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .filter(p -> !ROOT.relativize(p).toString().contains("target/"))
                    .filter(p -> !ROOT.relativize(p).toString().startsWith("benchmarks/peers/"))
                    .sorted()
                    .toList();
        }
    }

    static Document xml(Path file) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

    static Document xml(String text) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** The direct children of {@code parent} named {@code name}. */
    static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList list = parent.getChildNodes();
        for (int i = 0; i < list.getLength(); i++) {
            Node n = list.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    /** The text of the path of direct children, e.g. {@code child(project, "scm", "url")}; "" when absent. */
    static String text(Element parent, String... path) {
        Element e = parent;
        for (String name : path) {
            List<Element> c = children(e, name);
            if (c.isEmpty()) {
                return "";
            }
            e = c.get(0);
        }
        return e.getTextContent().strip();
    }
}
