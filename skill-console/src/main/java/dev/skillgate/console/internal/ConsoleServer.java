package dev.skillgate.console.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustStatus;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.console.ConsoleCode;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.Diagnostic;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The console's HTTP server (the JDK's {@code com.sun.net.httpserver}) on a loopback address, with
 * the checks every request passes before it reaches a route: loopback peer, exact {@code Host},
 * same-origin {@code Origin} / {@code Sec-Fetch-Site}, the per-start session, and for state changes
 * POST with the CSRF token, a JSON body of bounded size and an unlocked console.
 */
public final class ConsoleServer {
    /** Largest request body accepted, in bytes. */
    public static final int MAX_BODY = 64 * 1024;

    /** The Content-Security-Policy every response carries: only this origin's script and style. */
    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String WEB = "/dev/skillgate/console/web/";
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final HttpServer http;
    private final ExecutorService pool;
    private final Book book;
    private final SkillGateAdmin admin;
    private final String token = secret();
    private final String session = secret();
    private final String csrf = secret();
    private final String cookieName;
    private final Set<String> hosts = new HashSet<>();
    private final Set<String> origins = new HashSet<>();
    private final String authority;
    private final long answerWindowSeconds;
    private final Map<String, byte[]> assets;
    private volatile boolean locked;

    public ConsoleServer(InetAddress bind, int port, Book book, SkillGateAdmin admin, long answerWindowSeconds)
            throws IOException {
        if (!bind.isLoopbackAddress()) {
            throw new IllegalArgumentException("the console binds to a loopback address only");
        }
        this.book = book;
        this.admin = admin;
        this.answerWindowSeconds = answerWindowSeconds;
        this.assets = Map.of(
                "/", asset("index.html"),
                "/settings", asset("settings.html"),
                "/static/console.js", asset("console.js"),
                "/static/console.css", asset("console.css"));
        this.http = HttpServer.create(new InetSocketAddress(bind, port), 16);
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "skillgate-console-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(pool);
        http.createContext("/", this::handle);
        int actual = http.getAddress().getPort();
        String literal = bind instanceof Inet6Address ? "[::1]" : bind.getHostAddress();
        this.authority = literal + ":" + actual;
        hosts.add(authority);
        hosts.add("localhost:" + actual);
        for (String h : hosts) {
            origins.add("http://" + h);
        }
        this.cookieName = "skillgate-console-" + actual;
        http.start();
    }

    private static String secret() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static byte[] asset(String name) {
        try (InputStream in = ConsoleServer.class.getResourceAsStream(WEB + name)) {
            if (in == null) {
                throw new IllegalStateException("missing console asset " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The page's address without the token. */
    public URI base() {
        return URI.create("http://" + authority + "/");
    }

    /** The address that opens a session: give it to the browser, never to a log. */
    public URI launch() {
        return URI.create("http://" + authority + "/open?token=" + token);
    }

    public void lock(boolean on) {
        locked = on;
    }

    public boolean locked() {
        return locked;
    }

    public void stop() {
        http.stop(0);
        pool.shutdownNow();
    }

    // ---------------------------------------------------------------- request handling

    private void handle(HttpExchange x) {
        try (x) {
            try {
                route(x);
            } catch (Refusal r) {
                refuse(x, r.code, r.detail);
            } catch (RuntimeException e) {
                refuse(x, ConsoleCode.INVALID_REQUEST, "the request could not be handled");
            }
        } catch (IOException | RuntimeException e) {
            // The peer went away; nothing to answer.
        }
    }

    private static final class Refusal extends Exception {
        final ConsoleCode code;
        final String detail;

        Refusal(ConsoleCode code, String detail) {
            super(code.name(), null, false, false);
            this.code = code;
            this.detail = detail;
        }
    }

    private void route(HttpExchange x) throws IOException, Refusal {
        Headers h = x.getRequestHeaders();
        if (!x.getRemoteAddress().getAddress().isLoopbackAddress()) {
            throw new Refusal(ConsoleCode.NOT_LOOPBACK, "the console answers loopback peers only");
        }
        List<String> host = h.get("Host");
        if (host == null || host.size() != 1 || !hosts.contains(host.get(0).toLowerCase(Locale.ROOT))) {
            throw new Refusal(ConsoleCode.HOST_REFUSED, "the Host header does not name this console");
        }
        List<String> origin = h.get("Origin");
        if (origin != null && (origin.size() != 1 || !origins.contains(origin.get(0)))) {
            throw new Refusal(ConsoleCode.ORIGIN_REFUSED, "the request comes from another origin");
        }
        String site = h.getFirst("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new Refusal(ConsoleCode.ORIGIN_REFUSED, "the request comes from another site");
        }
        String method = x.getRequestMethod();
        String path = x.getRequestURI().getRawPath();
        if (path.equals("/open")) {
            open(x, method);
            return;
        }
        if (!sessionOk(h)) {
            throw new Refusal(ConsoleCode.TOKEN_REQUIRED, "open the console with the address the host gave you");
        }
        Route r = Route.of(path);
        if (r == Route.NONE) {
            throw new Refusal(ConsoleCode.NOT_FOUND, "no such page");
        }
        if (r.post != method.equals("POST") || !(method.equals("GET") || method.equals("POST"))) {
            throw new Refusal(ConsoleCode.METHOD_NOT_ALLOWED, r.post ? "a state change is POST only" : "GET only");
        }
        if (!r.post) {
            get(x, r, path);
            return;
        }
        if (origin == null) {
            throw new Refusal(ConsoleCode.ORIGIN_REFUSED, "a state change must name its origin");
        }
        String sent = h.getFirst("X-CSRF-Token");
        if (sent == null || !equal(sent, csrf)) {
            throw new Refusal(ConsoleCode.CSRF_REQUIRED, "the CSRF token is missing or wrong");
        }
        if (locked) {
            throw new Refusal(ConsoleCode.LOCKED, "the console is locked: no decision or setting is accepted");
        }
        String type = h.getFirst("Content-Type");
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new Refusal(ConsoleCode.UNSUPPORTED_MEDIA_TYPE, "the body must be application/json");
        }
        byte[] body = body(x);
        post(x, r, path, body);
    }

    private enum Route {
        NONE(false),
        PAGE(false),
        SESSION(false),
        REQUESTS(false),
        SOURCE(false),
        SETTINGS(false),
        DECISION(true),
        POLICY(true),
        SAFE_MODE(true),
        TRUST_REQUEST(true),
        REVOKE(true);

        final boolean post;

        Route(boolean post) {
            this.post = post;
        }

        static Route of(String path) {
            switch (path) {
                case "/", "/settings", "/static/console.js", "/static/console.css":
                    return PAGE;
                case "/api/session":
                    return SESSION;
                case "/api/requests":
                    return REQUESTS;
                case "/api/settings":
                    return SETTINGS;
                case "/api/settings/policy":
                    return POLICY;
                case "/api/settings/safe-mode":
                    return SAFE_MODE;
                case "/api/settings/trust-request":
                    return TRUST_REQUEST;
                case "/api/settings/trust/revoke":
                    return REVOKE;
                default:
                    break;
            }
            if (path.matches("/api/requests/[0-9a-f-]{1,64}/source")) {
                return SOURCE;
            }
            if (path.matches("/api/requests/[0-9a-f-]{1,64}/decision")) {
                return DECISION;
            }
            return NONE;
        }
    }

    private static String requestId(String path) {
        return path.split("/")[3];
    }

    private void open(HttpExchange x, String method) throws IOException, Refusal {
        if (!method.equals("GET")) {
            throw new Refusal(ConsoleCode.METHOD_NOT_ALLOWED, "GET only");
        }
        String query = x.getRequestURI().getRawQuery();
        String prefix = "token=";
        if (query == null || !query.startsWith(prefix) || !equal(query.substring(prefix.length()), token)) {
            throw new Refusal(ConsoleCode.TOKEN_REQUIRED, "open the console with the address the host gave you");
        }
        Headers out = x.getResponseHeaders();
        common(out);
        out.add("Set-Cookie", cookieName + "=" + session + "; Path=/; HttpOnly; SameSite=Strict");
        // The token leaves the address bar at once.
        out.add("Location", "/");
        x.sendResponseHeaders(303, -1);
    }

    private boolean sessionOk(Headers h) {
        List<String> cookies = h.get("Cookie");
        if (cookies == null) {
            return false;
        }
        boolean ok = false;
        for (String line : cookies) {
            for (String part : line.split(";")) {
                String p = part.trim();
                int eq = p.indexOf('=');
                if (eq > 0 && p.substring(0, eq).equals(cookieName)) {
                    ok = equal(p.substring(eq + 1), session);
                }
            }
        }
        return ok;
    }

    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] body(HttpExchange x) throws IOException, Refusal {
        String length = x.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            long n;
            try {
                n = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                throw new Refusal(ConsoleCode.INVALID_REQUEST, "bad Content-Length");
            }
            if (n > MAX_BODY) {
                throw new Refusal(ConsoleCode.BODY_TOO_LARGE, "the body is larger than " + MAX_BODY + " bytes");
            }
        }
        InputStream in = x.getRequestBody();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int r;
        while ((r = in.read(buf)) > 0) {
            out.write(buf, 0, r);
            if (out.size() > MAX_BODY) {
                throw new Refusal(ConsoleCode.BODY_TOO_LARGE, "the body is larger than " + MAX_BODY + " bytes");
            }
        }
        return out.toByteArray();
    }

    private static void common(Headers out) {
        out.set("Content-Security-Policy", CSP);
        out.set("X-Frame-Options", "DENY");
        out.set("X-Content-Type-Options", "nosniff");
        out.set("Referrer-Policy", "no-referrer");
        out.set("Cache-Control", "no-store, max-age=0");
        out.set("Pragma", "no-cache");
        out.set("Cross-Origin-Opener-Policy", "same-origin");
        out.set("Cross-Origin-Resource-Policy", "same-origin");
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        Headers out = x.getResponseHeaders();
        common(out);
        out.set("Content-Type", type);
        x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream os = x.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private static void json(HttpExchange x, int status, JsonNode node) throws IOException {
        send(x, status, "application/json; charset=utf-8", JSON.writeValueAsBytes(node));
    }

    private static void refuse(HttpExchange x, ConsoleCode code, String detail) {
        ObjectNode n = Display.NODES.objectNode();
        n.put("ok", false);
        n.put("code", code.name());
        n.put("message", detail);
        try {
            json(x, code.httpStatus(), n);
        } catch (IOException | RuntimeException e) {
            // The peer went away.
        }
    }

    private static void refuse(HttpExchange x, ConsoleCode code, String detail, List<Diagnostic> diagnostics)
            throws IOException {
        ObjectNode n = Display.NODES.objectNode();
        n.put("ok", false);
        n.put("code", code.name());
        n.put("message", detail);
        Display.diagnostics(n.putArray("diagnostics"), diagnostics);
        json(x, code.httpStatus(), n);
    }

    // ---------------------------------------------------------------- GET routes

    private void get(HttpExchange x, Route r, String path) throws IOException, Refusal {
        switch (r) {
            case PAGE -> {
                String type = path.endsWith(".js")
                        ? "text/javascript; charset=utf-8"
                        : path.endsWith(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8";
                send(x, 200, type, assets.get(path));
            }
            case SESSION -> {
                ObjectNode n = Display.NODES.objectNode();
                n.put("csrf", csrf);
                n.put("locked", locked);
                n.put("answerWindowSeconds", answerWindowSeconds);
                json(x, 200, n);
            }
            case REQUESTS -> {
                ObjectNode n = book.view();
                n.put("locked", locked);
                json(x, 200, n);
            }
            case SOURCE -> {
                Optional<Supplier<String>> source = book.source(requestId(path));
                if (source.isEmpty()) {
                    throw new Refusal(ConsoleCode.NOT_FOUND, "no source for that request (decided, or none)");
                }
                String text;
                try {
                    text = source.get().get();
                } catch (RuntimeException e) {
                    text = "";
                }
                ObjectNode n = Display.NODES.objectNode();
                n.put("text", Display.text(text == null ? "" : text));
                json(x, 200, n);
            }
            case SETTINGS -> json(x, 200, settings());
            default -> throw new Refusal(ConsoleCode.NOT_FOUND, "no such page");
        }
    }

    private ObjectNode settings() {
        PolicySnapshot policy = admin.currentPolicy();
        ObjectNode n = Display.NODES.objectNode();
        n.put("locked", locked);
        n.set("policy", Display.policy(policy, admin.safeMode()));
        ArrayNode trust = n.putArray("trust");
        for (TrustDecision d : admin.trust().list()) {
            trust.add(Display.trust(d));
        }
        n.set("audit", Display.audit(admin.trust().status()));
        ArrayNode candidates = n.putArray("candidates");
        for (Book.Candidate c : book.candidates()) {
            ObjectNode o = candidates.addObject();
            o.put("request", c.request());
            o.put("skill", Display.line(c.skill()));
            ConsentBinding b = c.binding();
            o.put("revision", b.revision().toString());
            o.put("agent", Display.line(b.agent().value()));
            Display.workspace(o.putObject("workspace"), b.workspace());
            o.put("timeoutMillis", b.timeout().millis());
            o.put("outputBytes", b.outputLimit().bytes());
            o.put(
                    "trusted",
                    policy.mode() == ExecutionPolicy.TRUST_SELECTED_REVISIONS
                            && policy.trustedScopeFor(b).isPresent());
        }
        return n;
    }

    // ---------------------------------------------------------------- POST routes

    private JsonNode parse(byte[] body) throws Refusal {
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || !n.isObject()) {
                throw new Refusal(ConsoleCode.INVALID_REQUEST, "the body must be a JSON object");
            }
            return n;
        } catch (JacksonException e) {
            throw new Refusal(ConsoleCode.INVALID_REQUEST, "the body is not valid JSON");
        }
    }

    private static String onlyString(JsonNode n, String member) throws Refusal {
        JsonNode v = n.get(member);
        if (n.size() != 1 || v == null || !v.isString()) {
            throw new Refusal(ConsoleCode.INVALID_REQUEST, "the body must be {\"" + member + "\": \"…\"}");
        }
        return v.asString();
    }

    private void post(HttpExchange x, Route r, String path, byte[] body) throws IOException, Refusal {
        switch (r) {
            case DECISION -> {
                String decision = onlyString(parse(body), "decision");
                if (!decision.equals("approve") && !decision.equals("deny")) {
                    throw new Refusal(ConsoleCode.INVALID_REQUEST, "the decision is approve or deny");
                }
                Optional<Book.Decided> d = book.decide(requestId(path), decision.equals("approve"));
                if (d.isEmpty()) {
                    throw new Refusal(ConsoleCode.NOT_FOUND, "no such request");
                }
                ObjectNode n = Display.NODES.objectNode();
                n.put("ok", d.get().accepted());
                n.put("state", d.get().state());
                if (!d.get().accepted()) {
                    n.put("code", ConsoleCode.DECISION_REFUSED.name());
                    n.put("message", "the request is no longer pending: nothing was decided");
                }
                json(x, d.get().accepted() ? 200 : ConsoleCode.DECISION_REFUSED.httpStatus(), n);
            }
            case POLICY -> {
                ConsentResult<PolicyUpdate> update = PolicyUpdate.parseJson(body);
                if (update.value().isEmpty()) {
                    refuse(
                            x,
                            ConsoleCode.SETTING_REFUSED,
                            "the policy was not saved",
                            update.failure().stream().toList());
                    return;
                }
                saved(x, admin.savePolicy(update.value().get()));
            }
            case SAFE_MODE -> {
                JsonNode n = parse(body);
                JsonNode on = n.get("on");
                if (n.size() != 1 || on == null || !on.isBoolean()) {
                    throw new Refusal(ConsoleCode.INVALID_REQUEST, "the body must be {\"on\": true|false}");
                }
                admin.setSafeMode(on.asBoolean());
                json(x, 200, ok(settings()));
            }
            case TRUST_REQUEST -> {
                String id = onlyString(parse(body), "request");
                Optional<ConsentBinding> binding = book.binding(id);
                if (binding.isEmpty()) {
                    throw new Refusal(ConsoleCode.NOT_FOUND, "no such execution request");
                }
                ConsentBinding b = binding.get();
                TrustScope scope = new TrustScope(b.revision(), b.agent(), b.workspace(), b.timeout(), b.outputLimit());
                List<TrustScope> scopes = new ArrayList<>();
                for (ScopeEntry e : admin.currentPolicy().scopes()) {
                    if (e.isApproved() && !e.scope().equals(scope)) {
                        scopes.add(e.scope());
                    }
                }
                scopes.add(scope);
                saved(x, admin.savePolicy(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, scopes)));
            }
            case REVOKE -> {
                String id = onlyString(parse(body), "id");
                Optional<TrustDecision> found = admin.trust().list().stream()
                        .filter(d -> d.status() == TrustStatus.TRUSTED
                                && d.scope().id().toString().equals(id))
                        .findFirst();
                if (found.isEmpty()) {
                    throw new Refusal(ConsoleCode.NOT_FOUND, "nothing trusted under that id");
                }
                AppendResult result = admin.trust().revoke(found.get().scope());
                if (result instanceof AppendResult.Refused refused) {
                    refuse(x, ConsoleCode.SETTING_REFUSED, "nothing was revoked", List.of(refused.reason()));
                    return;
                }
                json(x, 200, ok(settings()));
            }
            default -> throw new Refusal(ConsoleCode.NOT_FOUND, "no such route");
        }
    }

    private void saved(HttpExchange x, ConsentResult<PolicyChange> result) throws IOException {
        if (result.value().isEmpty()) {
            refuse(
                    x,
                    ConsoleCode.SETTING_REFUSED,
                    "the policy was not saved",
                    result.failure().stream().toList());
            return;
        }
        json(x, 200, ok(settings()));
    }

    private static ObjectNode ok(ObjectNode settings) {
        settings.put("ok", true);
        return settings;
    }
}
