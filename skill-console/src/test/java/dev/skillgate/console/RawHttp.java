package dev.skillgate.console;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A raw HTTP/1.1 client over a socket, so tests can send exactly the headers an attacker would
 * ({@code Host}, {@code Origin}, cookies) — the JDK's HttpClient refuses to set {@code Host}.
 */
final class RawHttp {
    static final JsonMapper JSON = JsonMapper.builder().build();

    record Response(int status, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.get(0);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() {
            return JSON.readTree(body);
        }

        String code() {
            return json().path("code").asString();
        }
    }

    private final URI base;

    RawHttp(URI base) {
        this.base = base;
    }

    String authority() {
        return base.getHost().contains(":") && !base.getHost().startsWith("[")
                ? "[" + base.getHost() + "]:" + base.getPort()
                : base.getHost() + ":" + base.getPort();
    }

    String origin() {
        return "http://" + authority();
    }

    Response send(String method, String target, Map<String, String> headers, byte[] body) throws IOException {
        try (Socket s = new Socket()) {
            String host = base.getHost().replace("[", "").replace("]", "");
            s.connect(new InetSocketAddress(host, base.getPort()), 10_000);
            s.setSoTimeout(30_000);
            StringBuilder req = new StringBuilder();
            req.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Host", authority());
            h.putAll(headers);
            if (body != null) {
                h.putIfAbsent("Content-Length", Integer.toString(body.length));
            }
            h.put("Connection", "close");
            for (Map.Entry<String, String> e : h.entrySet()) {
                if (e.getValue() != null) {
                    req.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
                }
            }
            req.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            // Half-close: a server waiting for more of a declared body sees its end at once.
            s.shutdownOutput();
            return read(s.getInputStream());
        }
    }

    private static Response read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        byte[] b = all.toByteArray();
        int end = indexOf(b, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        String head = new String(b, 0, end, StandardCharsets.ISO_8859_1);
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(lines[i].substring(c + 1).trim());
        }
        byte[] body = java.util.Arrays.copyOfRange(b, end + 4, b.length);
        List<String> te = headers.get("transfer-encoding");
        if (te != null && te.get(0).equalsIgnoreCase("chunked")) {
            body = dechunk(body);
        }
        return new Response(status, headers, body);
    }

    private static byte[] dechunk(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < b.length) {
            int eol =
                    indexOf(java.util.Arrays.copyOfRange(b, i, b.length), "\r\n".getBytes(StandardCharsets.ISO_8859_1));
            int size = Integer.parseInt(new String(b, i, eol, StandardCharsets.ISO_8859_1).trim(), 16);
            if (size == 0) {
                break;
            }
            out.write(b, i + eol + 2, size);
            i += eol + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= data.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
