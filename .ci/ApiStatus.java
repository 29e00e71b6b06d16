import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Marks every public top-level type of every exported package of every published module with its
 * apiguardian {@code @API(status = …)}, read from one checked-in table, {@code docs/api-status.tsv}
 * (decision 0630). Run from the checkout root with the JDK alone (no build needed):
 *
 * <pre>
 *   java .ci/ApiStatus.java           # annotate, add the import and module-info requires, update the table and docs/api.md
 *   java .ci/ApiStatus.java --check   # change nothing; list what the first form would change; exit 1 if anything
 * </pre>
 *
 * <p>Idempotent: a second run changes nothing. It edits only three kinds of line: the annotation
 * line right above a type's declaration (added, or its status replaced; {@code since} is kept), the
 * import line {@code import org.apiguardian.api.API;} (added in sorted place), and {@code requires
 * static org.apiguardian.api;} in a {@code module-info.java}. A table row names a package (its
 * default) or a type (an override). A package with no row gets {@code EXPERIMENTAL} and a row saying
 * so; rows for types or packages that are no longer exported are removed. The section of
 * {@code docs/api.md} between the {@code api-status} markers is regenerated from the result. A
 * qualified export ({@code exports p to m;}) must have status {@code INTERNAL}; anything it cannot
 * do safely (an unrecognised {@code @API} line, another type named {@code API}) is reported and the
 * file left alone, exit 2.
 */
public class ApiStatus {
    static final Set<String> STATUSES = Set.of("INTERNAL", "DEPRECATED", "EXPERIMENTAL", "MAINTAINED", "STABLE");
    static final String IMPORT = "import org.apiguardian.api.API;";
    static final String REQUIRES = "requires static org.apiguardian.api;";
    static final String TABLE = "docs/api-status.tsv";
    static final String DOC = "docs/api.md";
    static final String BEGIN = "<!-- api-status:begin";
    static final String END = "<!-- api-status:end -->";
    static final Pattern DECL = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\\s+)*(?:class|interface|enum|record|@interface)\\s+(\\w+)\\b.*");
    static final Pattern API_LINE =
            Pattern.compile("^@API\\(status = API\\.Status\\.(\\w+)(?:, since = \"([^\"]*)\")?\\)\\s*$");
    static final Pattern EXPORTS = Pattern.compile("\\bexports\\s+([\\w.]+)\\s*(?:to\\s+([^;]+))?;");
    static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    static final Pattern VERSION =
            Pattern.compile("<artifactId>skillgate-parent</artifactId>\\s*<version>([^<]+)</version>");

    record Row(String name, String status, String note) {}

    record Exported(String module, String pkg, List<String> targets) {}

    final Path root;
    final boolean check;
    final List<String> changes = new ArrayList<>();
    final List<String> problems = new ArrayList<>();
    final List<Object> tableLines = new ArrayList<>(); // String (comment/blank) or Row
    final Map<String, Row> rows = new LinkedHashMap<>();
    /** module → package → status → types. */
    final Map<String, Map<String, Map<String, Set<String>>>> result = new LinkedHashMap<>();
    final Map<String, Exported> exported = new LinkedHashMap<>();
    final Set<String> seenTypes = new TreeSet<>();

    ApiStatus(Path root, boolean check) {
        this.root = root;
        this.check = check;
    }

    public static void main(String[] args) throws IOException {
        boolean check = false;
        Path root = Path.of("");
        for (String a : args) {
            if (a.equals("--check")) {
                check = true;
            } else if (a.startsWith("-")) {
                System.err.println("usage: java .ci/ApiStatus.java [--check] [CHECKOUT]");
                System.exit(64);
            } else {
                root = Path.of(a);
            }
        }
        ApiStatus tool = new ApiStatus(root.toAbsolutePath().normalize(), check);
        tool.run();
        tool.changes.forEach(c -> System.out.println((tool.check ? "would change: " : "changed: ") + c));
        tool.problems.forEach(p -> System.out.println("problem: " + p));
        if (!tool.problems.isEmpty()) {
            System.exit(2);
        }
        if (check && !tool.changes.isEmpty()) {
            System.out.println("run `java .ci/ApiStatus.java` from the checkout root to apply these changes");
            System.exit(1);
        }
    }

    void run() throws IOException {
        readTable();
        String pom = read(root.resolve("pom.xml"));
        Matcher v = VERSION.matcher(pom);
        String since = v.find() ? v.group(1).replace("-SNAPSHOT", "") : "0.1.0";
        Matcher m = MODULE.matcher(pom);
        while (m.find()) {
            module(m.group(1), since);
        }
        // Rows for what is no longer exported.
        for (Row row : List.copyOf(rows.values())) {
            boolean type = isType(row.name());
            boolean live = type ? seenTypes.contains(row.name()) : exported.containsKey(row.name());
            if (!live) {
                rows.remove(row.name());
                tableLines.remove(row);
                changes.add(TABLE + ": remove the row for " + row.name() + " (no longer exported)");
            }
        }
        writeTable();
        writeDoc();
    }

    void module(String module, String since) throws IOException {
        Path dir = root.resolve(module);
        Path pom = dir.resolve("pom.xml");
        Path info = dir.resolve("src/main/java/module-info.java");
        if (!Files.isRegularFile(pom) || !Files.isRegularFile(info)) {
            return;
        }
        if (read(pom).contains("<maven.deploy.skip>true</maven.deploy.skip>")) {
            return; // not published: no host sees it
        }
        String text = read(info);
        String code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
        List<Exported> exports = new ArrayList<>();
        Matcher e = EXPORTS.matcher(code);
        while (e.find()) {
            List<String> targets = e.group(2) == null
                    ? List.of()
                    : Stream.of(e.group(2).split(",")).map(String::strip).toList();
            exports.add(new Exported(module, e.group(1), targets));
        }
        if (exports.isEmpty()) {
            return;
        }
        requires(info, text);
        for (Exported x : exports) {
            exported.put(x.pkg(), x);
            Path pkgDir = dir.resolve("src/main/java").resolve(x.pkg().replace('.', '/'));
            if (!Files.isDirectory(pkgDir)) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.list(pkgDir)) {
                files = s.filter(p -> p.getFileName().toString().endsWith(".java"))
                        .filter(p -> !p.getFileName().toString().equals("package-info.java"))
                        .sorted()
                        .toList();
            }
            for (Path file : files) {
                type(x, file, since);
            }
        }
    }

    void requires(Path info, String text) throws IOException {
        if (text.contains(REQUIRES)) {
            return;
        }
        List<String> lines = lines(text);
        int last = -1;
        int first = -1;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.matches("\\s+requires\\s.*;\\s*")) {
                last = i;
            }
            if (first < 0 && l.matches("\\s+(exports|opens|uses|provides)\\s.*")) {
                first = i;
            }
        }
        if (last >= 0) {
            String indent = lines.get(last).substring(0, lines.get(last).indexOf('r'));
            lines.add(last + 1, indent + REQUIRES);
        } else if (first >= 0) {
            String l = lines.get(first);
            String indent = l.substring(0, l.length() - l.stripLeading().length());
            lines.add(first, "");
            lines.add(first, indent + REQUIRES);
        } else {
            problems.add(rel(info) + ": no requires or exports line to put `" + REQUIRES + "` next to");
            return;
        }
        write(info, lines, "add `" + REQUIRES + "`");
    }

    void type(Exported x, Path file, String since) throws IOException {
        String name = file.getFileName().toString().replaceFirst("\\.java$", "");
        List<String> lines = lines(read(file));
        int decl = -1;
        for (int i = 0; i < lines.size(); i++) {
            Matcher d = DECL.matcher(lines.get(i));
            if (d.matches() && d.group(1).equals(name)) {
                decl = i;
                break;
            }
        }
        if (decl < 0) {
            return; // not a public top-level type
        }
        String fq = x.pkg() + "." + name;
        seenTypes.add(fq);
        String status = status(fq, x.pkg());
        if (!x.targets().isEmpty() && !status.equals("INTERNAL")) {
            problems.add(fq + " is in a qualified export (to " + String.join(", ", x.targets())
                    + ") but its status is " + status + ": give " + x.pkg() + " the status INTERNAL in " + TABLE);
        }
        result.computeIfAbsent(x.module(), k -> new LinkedHashMap<>())
                .computeIfAbsent(x.pkg(), k -> new TreeMap<>(ApiStatus::byStatus))
                .computeIfAbsent(status, k -> new TreeSet<>())
                .add(name);
        List<String> before = List.copyOf(lines);
        int api = -1;
        for (int i = 0; i < decl; i++) {
            if (lines.get(i).startsWith("@API(")) {
                api = i;
            }
        }
        String wanted = "@API(status = API.Status." + status + ", since = \"" + since + "\")";
        if (api >= 0) {
            Matcher a = API_LINE.matcher(lines.get(api));
            if (!a.matches()) {
                problems.add(rel(file) + ":" + (api + 1) + ": an @API line this tool does not recognise: " + lines.get(api));
                return;
            }
            if (!a.group(1).equals(status)) {
                String keepSince = a.group(2) == null ? "" : ", since = \"" + a.group(2) + "\"";
                lines.set(api, "@API(status = API.Status." + status + keepSince + ")");
            }
        } else {
            lines.add(decl, wanted);
        }
        if (!lines.contains(IMPORT)) {
            for (String l : lines) {
                if (l.matches("import\\s+[\\w.]+\\.API\\s*;") || l.matches("\\s*(?:(?:public|private|protected|static|final|sealed|abstract)\\s+)*(?:class|interface|enum|record)\\s+API\\b.*")) {
                    problems.add(rel(file) + ": another type named API is in scope (" + l.strip() + ")");
                    return;
                }
            }
            int firstAfter = -1;
            int lastPlain = -1;
            int lastStatic = -1;
            int pkg = -1;
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i);
                if (l.startsWith("import static ")) {
                    lastStatic = i;
                } else if (l.startsWith("import ")) {
                    lastPlain = i;
                    if (firstAfter < 0 && l.compareTo(IMPORT) > 0) {
                        firstAfter = i;
                    }
                } else if (pkg < 0 && l.startsWith("package ")) {
                    pkg = i;
                }
            }
            if (firstAfter >= 0) {
                lines.add(firstAfter, IMPORT);
            } else if (lastPlain >= 0) {
                lines.add(lastPlain + 1, IMPORT);
            } else if (lastStatic >= 0) {
                lines.add(lastStatic + 1, IMPORT);
                lines.add(lastStatic + 1, "");
            } else if (pkg >= 0) {
                lines.add(pkg + 1, IMPORT);
                lines.add(pkg + 1, "");
            } else {
                problems.add(rel(file) + ": no package line");
                return;
            }
        }
        if (!lines.equals(before)) {
            write(file, lines, fq + " is " + status);
        }
    }

    String status(String fq, String pkg) {
        Row t = rows.get(fq);
        if (t != null) {
            return t.status();
        }
        Row p = rows.get(pkg);
        if (p != null) {
            return p.status();
        }
        Row added = new Row(pkg, exported.get(pkg).targets().isEmpty() ? "EXPERIMENTAL" : "INTERNAL",
                "new package: default status set by .ci/ApiStatus.java, review");
        rows.put(pkg, added);
        tableLines.add(added);
        changes.add(TABLE + ": add the row " + pkg + " " + added.status() + " (a package with no row)");
        return added.status();
    }

    void readTable() throws IOException {
        Path table = root.resolve(TABLE);
        if (!Files.isRegularFile(table)) {
            problems.add(TABLE + " is missing");
            return;
        }
        int n = 0;
        for (String l : lines(read(table))) {
            n++;
            if (l.isBlank() || l.startsWith("#")) {
                tableLines.add(l);
                continue;
            }
            String[] f = l.split("\t", 3);
            if (f.length < 2 || !STATUSES.contains(f[1].strip()) || rows.containsKey(f[0].strip())) {
                problems.add(TABLE + ":" + n + ": expected NAME<TAB>STATUS<TAB>NOTE, one row per name, STATUS one of "
                        + new TreeSet<>(STATUSES) + ": " + l);
                tableLines.add(l);
                continue;
            }
            Row row = new Row(f[0].strip(), f[1].strip(), f.length > 2 ? f[2].strip() : "");
            rows.put(row.name(), row);
            tableLines.add(row);
        }
        if (!tableLines.isEmpty() && "".equals(tableLines.get(tableLines.size() - 1))) {
            tableLines.remove(tableLines.size() - 1); // the final newline
        }
    }

    void writeTable() throws IOException {
        Path table = root.resolve(TABLE);
        if (!Files.isRegularFile(table)) {
            return;
        }
        List<String> out = new ArrayList<>();
        for (Object o : tableLines) {
            out.add(o instanceof Row r ? r.name() + "\t" + r.status() + "\t" + r.note() : (String) o);
        }
        String text = String.join("\n", out) + "\n";
        if (!text.equals(read(table)) && !check) {
            Files.writeString(table, text, StandardCharsets.UTF_8);
        }
    }

    void writeDoc() throws IOException {
        Path doc = root.resolve(DOC);
        if (!Files.isRegularFile(doc)) {
            problems.add(DOC + " is missing");
            return;
        }
        String text = read(doc);
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        if (b < 0 || e < b) {
            problems.add(DOC + " has no `" + BEGIN + " … -->` … `" + END + "` section");
            return;
        }
        int bodyStart = text.indexOf('\n', b) + 1;
        StringBuilder body = new StringBuilder("\n");
        result.forEach((module, pkgs) -> {
            body.append("**`").append(module).append("`**\n\n");
            pkgs.forEach((pkg, statuses) -> {
                Exported x = exported.get(pkg);
                body.append("- `").append(pkg).append('`');
                if (!x.targets().isEmpty()) {
                    body.append(" (exported to `").append(String.join("`, `", x.targets())).append("` only)");
                }
                body.append(" —");
                List<String> parts = new ArrayList<>();
                statuses.forEach((status, types) -> parts.add(" " + status + ": `" + String.join("`, `", types) + "`"));
                body.append(String.join(";", parts)).append('\n');
            });
            body.append('\n');
        });
        String updated = text.substring(0, bodyStart) + body + text.substring(e);
        if (!updated.equals(text)) {
            changes.add(DOC + ": regenerate the status section");
            if (!check) {
                Files.writeString(doc, updated, StandardCharsets.UTF_8);
            }
        }
    }

    static int byStatus(String a, String b) {
        List<String> order = List.of("STABLE", "MAINTAINED", "EXPERIMENTAL", "DEPRECATED", "INTERNAL");
        return Integer.compare(order.indexOf(a), order.indexOf(b));
    }

    static boolean isType(String name) {
        String last = name.substring(name.lastIndexOf('.') + 1);
        return !last.isEmpty() && Character.isUpperCase(last.charAt(0));
    }

    void write(Path file, List<String> lines, String what) throws IOException {
        changes.add(rel(file) + ": " + what);
        if (!check) {
            Files.writeString(file, String.join("\n", lines), StandardCharsets.UTF_8);
        }
    }

    /** Lines split on \n keeping a trailing empty element, so join("\n") restores the text exactly. */
    static List<String> lines(String text) {
        return new ArrayList<>(List.of(text.split("\n", -1)));
    }

    String rel(Path p) {
        return root.relativize(p).toString();
    }

    static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }
}
