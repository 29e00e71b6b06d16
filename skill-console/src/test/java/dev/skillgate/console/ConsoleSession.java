package dev.skillgate.console;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** A well-behaved client of the console's API: opens a session as a browser would, then GETs and POSTs. */
final class ConsoleSession {
    final RawHttp http;
    final String cookie;
    final String csrf;

    private ConsoleSession(RawHttp http, String cookie, String csrf) {
        this.http = http;
        this.cookie = cookie;
        this.csrf = csrf;
    }

    static ConsoleSession open(ApprovalConsole console) throws IOException {
        RawHttp http = new RawHttp(console.baseUri());
        String launch =
                console.launchUri().getRawPath() + "?" + console.launchUri().getRawQuery();
        RawHttp.Response opened = http.send("GET", launch, Map.of("Sec-Fetch-Site", "none"), null);
        if (opened.status() != 303) {
            throw new IllegalStateException("open answered " + opened.status());
        }
        String cookie = opened.header("Set-Cookie").split(";")[0];
        RawHttp.Response session = http.send("GET", "/api/session", Map.of("Cookie", cookie), null);
        return new ConsoleSession(http, cookie, session.json().path("csrf").asString());
    }

    RawHttp.Response get(String path) throws IOException {
        return http.send("GET", path, Map.of("Cookie", cookie), null);
    }

    Map<String, String> postHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Cookie", cookie);
        h.put("Origin", http.origin());
        h.put("X-CSRF-Token", csrf);
        h.put("Content-Type", "application/json");
        h.put("Sec-Fetch-Site", "same-origin");
        return h;
    }

    RawHttp.Response post(String path, String json) throws IOException {
        return http.send("POST", path, postHeaders(), json.getBytes(StandardCharsets.UTF_8));
    }

    /** POST with some headers changed ({@code null} removes one). */
    RawHttp.Response post(String path, String json, Map<String, String> changes) throws IOException {
        Map<String, String> h = postHeaders();
        for (Map.Entry<String, String> e : changes.entrySet()) {
            if (e.getValue() == null) {
                h.remove(e.getKey());
            } else {
                h.put(e.getKey(), e.getValue());
            }
        }
        return http.send("POST", path, h, json.getBytes(StandardCharsets.UTF_8));
    }
}
