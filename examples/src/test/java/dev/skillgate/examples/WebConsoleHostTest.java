package dev.skillgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.testkit.TestNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console host end to end with a real node: the "person" opens the printed address, finds
 * the pending request and approves it over the page's own API (the browser journey itself is
 * {@code ConsoleBrowserTest} in skill-console); the host prints the envelope.
 */
class WebConsoleHostTest {
    private static final Path SKILLS = Path.of("skills").toAbsolutePath();

    @TempDir
    Path tmp;

    /** One HTTP/1.1 exchange over a socket; returns the status line, headers and body as text. */
    private static String http(URI base, String method, String target, String headers, String body) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
            s.setSoTimeout(30_000);
            byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
            String head = method + " " + target + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
                    + "\r\nConnection: close\r\n" + headers
                    + (body == null ? "" : "Content-Length: " + b.length + "\r\n")
                    + "\r\n";
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(b);
            out.flush();
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String find(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : "";
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aClickOnApproveInThePageRunsTheSkill() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CompletableFuture<URI> launch = new CompletableFuture<>();
        String node = TestNode.binary().orElseThrow().toString();
        String version = TestNode.version(TestNode.binary().orElseThrow()).orElseThrow();
        CompletableFuture<Integer> host = CompletableFuture.supplyAsync(() -> {
            try {
                return WebConsoleHost.run(
                        new String[] {
                            SKILLS.toString(),
                            node,
                            version,
                            "hello-world",
                            "{\"name\":\"Ada\"}",
                            tmp.resolve("data").toString()
                        },
                        new StringReader(""),
                        out,
                        launch::complete);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        URI uri = launch.get(60, TimeUnit.SECONDS);
        URI base = URI.create("http://" + uri.getHost() + ":" + uri.getPort() + "/");
        String opened = http(base, "GET", uri.getRawPath() + "?" + uri.getRawQuery(), "", null);
        String cookie = find(opened, "(?i)set-cookie: ([^;]+);");
        String csrf =
                find(http(base, "GET", "/api/session", "Cookie: " + cookie + "\r\n", null), "\"csrf\":\"([^\"]+)\"");
        String id = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (id.isEmpty() && System.nanoTime() < deadline) {
            id = find(
                    http(base, "GET", "/api/requests", "Cookie: " + cookie + "\r\n", null),
                    "\"id\":\"([0-9a-f-]+)\",\"kind\":\"EXECUTION\",\"state\":\"PENDING\"");
            Thread.sleep(100);
        }
        assertThat(id).isNotEmpty();
        String decided = http(
                base,
                "POST",
                "/api/requests/" + id + "/decision",
                "Cookie: " + cookie + "\r\nOrigin: http://" + base.getHost() + ":" + base.getPort()
                        + "\r\nX-CSRF-Token: " + csrf + "\r\nContent-Type: application/json\r\n",
                "{\"decision\":\"approve\"}");
        assertThat(decided).startsWith("HTTP/1.1 200");
        assertThat(host.get(120, TimeUnit.SECONDS))
                .as(bytes.toString(StandardCharsets.UTF_8))
                .isZero();
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .doesNotContain(uri.getRawQuery());
    }
}
