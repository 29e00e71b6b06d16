package dev.skillgate.testkit;

import dev.skillgate.fixtures.NodeFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * A fluent writer of one synthetic skill bundle on disk: valid ones (SKILL.md, an execution manifest
 * generated from the declared files, scripts, references, assets, a trust contract) and hostile ones
 * (symbolic links, FIFOs, traversal in the manifest, oversized files, invalid UTF-8, raw manifests).
 *
 * <p>Nothing is written until {@link #write()}; files are created new (an existing file or a link in
 * the way fails the write, nothing is followed). The generated manifest lists every file added with
 * {@link #script} or {@link #file} (and paths added with {@link #declare}) in the order added; the
 * entrypoint is the first script unless {@link #entrypoint} says otherwise. A bundle written here
 * runs nothing by being written; running it still takes consent.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillBundle {
    private final Path root;
    private final String name;
    private String description;
    private final List<String> extraFrontmatter = new ArrayList<>();
    private String body;
    private byte[] rawSkillMd;
    private final Map<String, byte[]> declared = new LinkedHashMap<>();
    private final List<String> declaredOnly = new ArrayList<>();
    private final Map<String, byte[]> resources = new LinkedHashMap<>();
    private final Map<String, Path> links = new LinkedHashMap<>();
    private final List<String> fifos = new ArrayList<>();
    private String entrypoint;
    private String inputSchema = "{\"type\":\"object\",\"properties\":{}}";
    private String outputSchema = "{\"type\":\"object\",\"properties\":{}}";
    private Integer timeoutMs = 10_000;
    private Integer maxOutputBytes;
    private boolean manifest = true;
    private String rawManifest;
    private String contract;

    SkillBundle(Path root, String name) {
        this.root = Objects.requireNonNull(root, "root");
        this.name = Objects.requireNonNull(name, "name");
        this.description = "A synthetic test skill called " + name + ".";
        this.body = "# " + name + "\n\nA synthetic skill written by the Skillgate testkit.\n";
    }

    /** A bundle called {@code name} (also its directory name) under {@code root}. */
    public static SkillBundle under(Path root, String name) {
        return new SkillBundle(root, name);
    }

    /** The description (written as a double-quoted YAML scalar). */
    public SkillBundle description(String description) {
        this.description = Objects.requireNonNull(description, "description");
        return this;
    }

    /** An extra frontmatter line, written verbatim (e.g. {@code allowed-tools: Bash}). */
    public SkillBundle frontmatterLine(String line) {
        extraFrontmatter.add(Objects.requireNonNull(line, "line"));
        return this;
    }

    /** The Markdown body after the frontmatter. */
    public SkillBundle body(String body) {
        this.body = Objects.requireNonNull(body, "body");
        return this;
    }

    /** The exact bytes of SKILL.md (replaces the generated frontmatter and body). */
    public SkillBundle rawSkillMd(byte[] bytes) {
        this.rawSkillMd = bytes.clone();
        return this;
    }

    /** A declared script file; the first script is the entrypoint unless {@link #entrypoint} is set. */
    public SkillBundle script(String path, String source) {
        return script(path, source.getBytes(StandardCharsets.UTF_8));
    }

    /** A declared script file with exact bytes. */
    public SkillBundle script(String path, byte[] source) {
        if (entrypoint == null) {
            entrypoint = path;
        }
        declared.put(path, source.clone());
        return this;
    }

    /** One of the adversarial (or positive) Node fixtures as {@code scripts/<file name>}. */
    public SkillBundle fixture(NodeFixture fixture) {
        return script("scripts/" + fixture.fileName(), fixture.bytes());
    }

    /** The entrypoint path, when it is not the first script. */
    public SkillBundle entrypoint(String path) {
        this.entrypoint = Objects.requireNonNull(path, "path");
        return this;
    }

    /** A declared, non-script file (captured and staged with the bundle). */
    public SkillBundle file(String path, String content) {
        declared.put(path, content.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** A file that is written but not declared (references, assets for prompt use). */
    public SkillBundle resource(String path, String content) {
        resources.put(path, content.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /** Lists {@code path} in the manifest without writing it (missing files, {@code ../} traversal). */
    public SkillBundle declare(String path) {
        declaredOnly.add(Objects.requireNonNull(path, "path"));
        return this;
    }

    /** The input schema (JSON text). */
    public SkillBundle inputSchema(String json) {
        this.inputSchema = Objects.requireNonNull(json, "json");
        return this;
    }

    /** The output schema (JSON text). */
    public SkillBundle outputSchema(String json) {
        this.outputSchema = Objects.requireNonNull(json, "json");
        return this;
    }

    /** {@code timeoutMs} (null omits it: the default 60,000 applies). */
    public SkillBundle timeoutMs(Integer millis) {
        this.timeoutMs = millis;
        return this;
    }

    /** {@code maxOutputBytes} (null omits it: the default 65,536 applies). */
    public SkillBundle maxOutputBytes(Integer bytes) {
        this.maxOutputBytes = bytes;
        return this;
    }

    /** No {@code execution.json}: a prompt-only skill. */
    public SkillBundle noManifest() {
        this.manifest = false;
        return this;
    }

    /** The exact text of {@code execution.json} (replaces the generated one). */
    public SkillBundle rawManifest(String json) {
        this.rawManifest = Objects.requireNonNull(json, "json");
        return this;
    }

    /** The exact text of {@code skill.contract.json}. */
    public SkillBundle contract(String json) {
        this.contract = Objects.requireNonNull(json, "json");
        return this;
    }

    // --- hostile content ---

    /** A symbolic link at {@code path} (declared in the manifest) pointing at {@code target}. */
    public SkillBundle symlink(String path, Path target) {
        links.put(path, Objects.requireNonNull(target, "target"));
        declaredOnly.add(path);
        if (entrypoint == null && path.endsWith("js")) {
            entrypoint = path;
        }
        return this;
    }

    /** A FIFO at {@code path} (declared in the manifest): reading it would block forever. */
    public SkillBundle fifo(String path) {
        fifos.add(Objects.requireNonNull(path, "path"));
        declaredOnly.add(path);
        return this;
    }

    /** A declared file of {@code bytes} bytes (1 MiB + 1 is over the per-file bound). */
    public SkillBundle oversized(String path, int bytes) {
        byte[] content = new byte[bytes];
        Arrays.fill(content, (byte) '/');
        declared.put(path, content);
        return this;
    }

    /** A declared file holding invalid UTF-8 (a lone 0xFF byte in a comment). */
    public SkillBundle invalidUtf8(String path) {
        declared.put(path, new byte[] {'/', '/', ' ', (byte) 0xFF, '\n'});
        return this;
    }

    /** Writes the bundle and returns its directory. */
    public Path write() {
        try {
            Path dir = root.resolve(name);
            Files.createDirectories(dir);
            createNew(dir.resolve("SKILL.md"), rawSkillMd != null ? rawSkillMd : skillMd());
            for (Map.Entry<String, byte[]> f : declared.entrySet()) {
                createNew(dir.resolve(f.getKey()), f.getValue());
            }
            for (Map.Entry<String, byte[]> f : resources.entrySet()) {
                createNew(dir.resolve(f.getKey()), f.getValue());
            }
            for (Map.Entry<String, Path> l : links.entrySet()) {
                Path link = dir.resolve(l.getKey());
                Files.createDirectories(link.getParent());
                Files.createSymbolicLink(link, l.getValue());
            }
            for (String f : fifos) {
                mkfifo(dir.resolve(f));
            }
            if (contract != null) {
                createNew(dir.resolve("skill.contract.json"), contract.getBytes(StandardCharsets.UTF_8));
            }
            if (manifest) {
                String text = rawManifest != null ? rawManifest : manifestJson();
                createNew(dir.resolve("execution.json"), text.getBytes(StandardCharsets.UTF_8));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("the bundle could not be written", e);
        }
    }

    private byte[] skillMd() {
        StringBuilder s = new StringBuilder("---\n");
        s.append("name: ").append(name).append('\n');
        s.append("description: \"")
                .append(description.replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\"\n");
        extraFrontmatter.forEach(l -> s.append(l).append('\n'));
        s.append("---\n").append(body);
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    private String manifestJson() {
        List<String> files = new ArrayList<>(declared.keySet());
        files.addAll(declaredOnly);
        StringBuilder s = new StringBuilder("{\n  \"schemaVersion\": 1,\n");
        s.append("  \"entrypoint\": ")
                .append(quote(Optional.ofNullable(entrypoint).orElse("scripts/missing.mjs")));
        s.append(",\n  \"files\": [");
        for (int i = 0; i < files.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(quote(files.get(i)));
        }
        s.append("],\n  \"inputSchema\": ").append(inputSchema);
        s.append(",\n  \"outputSchema\": ").append(outputSchema);
        if (timeoutMs != null) {
            s.append(",\n  \"timeoutMs\": ").append(timeoutMs);
        }
        if (maxOutputBytes != null) {
            s.append(",\n  \"maxOutputBytes\": ").append(maxOutputBytes);
        }
        return s.append("\n}\n").toString();
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static void createNew(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    }

    private static void mkfifo(Path path) throws IOException {
        Files.createDirectories(path.getParent());
        Path tool = Path.of("/usr/bin/mkfifo");
        if (!Files.isExecutable(tool)) {
            throw new UnsupportedOperationException("no /usr/bin/mkfifo on this platform");
        }
        ProcessBuilder pb = new ProcessBuilder(tool.toString(), "--", path.toString());
        pb.environment().clear();
        pb.redirectErrorStream(true);
        Process p = pb.start();
        try {
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("mkfifo failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while creating a FIFO", e);
        }
    }
}
