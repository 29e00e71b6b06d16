package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.console.internal.ConsoleServer;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every check the page's security rests on, attacked through a real server over a raw socket: each
 * refused request changes nothing (the pending request stays pending, the policy file stays
 * byte-identical).
 */
class ConsoleSecurityTest {
    @TempDir
    Path tmp;

    private SkillGateAdmin admin;
    private ApprovalConsole console;
    private ConsoleSession session;
    private ApprovalRequest request;
    private CompletionStage<ApprovalDecision> answer;

    @BeforeEach
    void start() throws IOException {
        admin = SkillGateAdmin.open(tmp.resolve("data"));
        console = ApprovalConsole.builder(admin).start();
        session = ConsoleSession.open(console);
        request = Requests.execution(RunId.random(), "probe", "{\n  \"name\": \"Ada\"\n}");
        answer = console.channel().request(request);
    }

    @AfterEach
    void stop() {
        console.close();
        admin.close();
    }

    private String decisionPath() {
        return "/api/requests/" + request.proposal() + "/decision";
    }

    private static final String APPROVE = "{\"decision\":\"approve\"}";

    private void assertStillPending() {
        assertThat(console.pendingRequests()).containsExactly(request.proposal().toString());
        assertThat(answer.toCompletableFuture()).isNotDone();
    }

    @Test
    void aWellFormedApprovalIsAcceptedOnceAndAReplayIsRefused() throws Exception {
        RawHttp.Response first = session.post(decisionPath(), APPROVE);
        assertThat(first.status()).isEqualTo(200);
        assertThat(answer.toCompletableFuture().get(10, TimeUnit.SECONDS).isApproval())
                .isTrue();

        RawHttp.Response replay = session.post(decisionPath(), APPROVE);
        assertThat(replay.status()).isEqualTo(409);
        assertThat(replay.code()).isEqualTo("DECISION_REFUSED");
        assertThat(replay.json().path("state").asString()).isEqualTo("APPROVED");
        RawHttp.Response lateDeny = session.post(decisionPath(), "{\"decision\":\"deny\"}");
        assertThat(lateDeny.status()).isEqualTo(409);
        assertThat(console.requestCounts()).containsEntry("APPROVED", 1);
    }

    @Test
    void withoutTheSessionEveryRouteIsRefused() throws Exception {
        for (String path : new String[] {
            "/",
            "/settings",
            "/static/console.js",
            "/api/session",
            "/api/requests",
            "/api/settings",
            "/api/requests/" + request.proposal() + "/source"
        }) {
            RawHttp.Response r = session.http.send("GET", path, Map.of(), null);
            assertThat(r.status()).as(path).isEqualTo(401);
            assertThat(r.code()).isEqualTo("TOKEN_REQUIRED");
            assertThat(r.text()).doesNotContain(session.csrf);
        }
        RawHttp.Response forged = session.http.send(
                "GET", "/api/session", Map.of("Cookie", session.cookie.split("=")[0] + "=forged"), null);
        assertThat(forged.status()).isEqualTo(401);
        Map<String, String> noCookie = new HashMap<>();
        noCookie.put("Cookie", null);
        assertThat(session.post(decisionPath(), APPROVE, noCookie).status()).isEqualTo(401);
        RawHttp.Response wrongToken = session.http.send("GET", "/open?token=AAAA", Map.of(), null);
        assertThat(wrongToken.status()).isEqualTo(401);
        assertThat(wrongToken.header("Set-Cookie")).isNull();
        assertStillPending();
    }

    @Test
    void theLaunchTokenLeavesTheAddressBarAndNeverAppearsInToString() throws Exception {
        String launch =
                console.launchUri().getRawPath() + "?" + console.launchUri().getRawQuery();
        RawHttp.Response opened = session.http.send("GET", launch, Map.of(), null);
        assertThat(opened.status()).isEqualTo(303);
        assertThat(opened.header("Location")).isEqualTo("/");
        assertThat(opened.header("Set-Cookie"))
                .contains("HttpOnly")
                .contains("SameSite=Strict")
                .contains("Path=/");
        String token = console.launchUri().getRawQuery().substring("token=".length());
        assertThat(token).hasSizeGreaterThanOrEqualTo(43);
        assertThat(console.toString()).doesNotContain(token);
        assertThat(console.channel().toString()).doesNotContain(token);
        assertThat(session.cookie).doesNotContain(token);
    }

    @Test
    void aTokenFromAnEarlierStartOpensNothing() throws Exception {
        String oldLaunch =
                console.launchUri().getRawPath() + "?" + console.launchUri().getRawQuery();
        String oldCookie = session.cookie;
        console.close();
        console = ApprovalConsole.builder(admin).start();
        RawHttp http = new RawHttp(console.baseUri());
        assertThat(http.send("GET", oldLaunch, Map.of(), null).status()).isEqualTo(401);
        String renamed = "skillgate-console-" + console.baseUri().getPort() + "="
                + oldCookie.split("=", 2)[1];
        assertThat(http.send("GET", "/api/session", Map.of("Cookie", renamed), null)
                        .status())
                .isEqualTo(401);
    }

    @Test
    void aForeignHostIsRefusedEvenWithTheSession() throws Exception {
        for (String host :
                new String[] {"attacker.example:" + console.baseUri().getPort(), "127.0.0.1:1", "attacker.example", ""
                }) {
            RawHttp.Response r =
                    session.http.send("GET", "/api/session", Map.of("Cookie", session.cookie, "Host", host), null);
            assertThat(r.status()).as(host).isEqualTo(403);
            assertThat(r.code()).isEqualTo("HOST_REFUSED");
            assertThat(r.text()).doesNotContain(session.csrf);
        }
        RawHttp.Response post = session.post(
                decisionPath(),
                APPROVE,
                Map.of("Host", "rebound.example:" + console.baseUri().getPort()));
        assertThat(post.status()).isEqualTo(403);
        assertThat(post.code()).isEqualTo("HOST_REFUSED");
        assertStillPending();
    }

    @Test
    void aForeignOriginOrSiteIsRefused() throws Exception {
        int port = console.baseUri().getPort();
        for (String origin : new String[] {
            "http://attacker.example",
            "http://127.0.0.1:" + (port == 65535 ? 1 : port + 1),
            "https://127.0.0.1:" + port,
            "null"
        }) {
            RawHttp.Response r = session.post(decisionPath(), APPROVE, Map.of("Origin", origin));
            assertThat(r.status()).as(origin).isEqualTo(403);
            assertThat(r.code()).isEqualTo("ORIGIN_REFUSED");
            RawHttp.Response read =
                    session.http.send("GET", "/api/session", Map.of("Cookie", session.cookie, "Origin", origin), null);
            assertThat(read.status()).isEqualTo(403);
        }
        for (String site : new String[] {"cross-site", "same-site"}) {
            RawHttp.Response r = session.post(decisionPath(), APPROVE, Map.of("Sec-Fetch-Site", site));
            assertThat(r.code()).isEqualTo("ORIGIN_REFUSED");
        }
        Map<String, String> noOrigin = new HashMap<>();
        noOrigin.put("Origin", null);
        assertThat(session.post(decisionPath(), APPROVE, noOrigin).code()).isEqualTo("ORIGIN_REFUSED");
        assertStillPending();
    }

    @Test
    void aStateChangeWithoutTheCsrfTokenOrAsGetIsRefused() throws Exception {
        Map<String, String> noCsrf = new HashMap<>();
        noCsrf.put("X-CSRF-Token", null);
        assertThat(session.post(decisionPath(), APPROVE, noCsrf).code()).isEqualTo("CSRF_REQUIRED");
        assertThat(session.post(decisionPath(), APPROVE, Map.of("X-CSRF-Token", "x" + session.csrf))
                        .code())
                .isEqualTo("CSRF_REQUIRED");
        RawHttp.Response get = session.get(decisionPath());
        assertThat(get.status()).isEqualTo(405);
        assertThat(get.code()).isEqualTo("METHOD_NOT_ALLOWED");
        RawHttp.Response getWithQuery = session.get(decisionPath() + "?decision=approve");
        assertThat(getWithQuery.status()).isEqualTo(405);
        assertThat(session.http
                        .send("PUT", decisionPath(), session.postHeaders(), APPROVE.getBytes(StandardCharsets.UTF_8))
                        .status())
                .isEqualTo(405);
        assertThat(session.post(
                                decisionPath(),
                                "decision=approve",
                                Map.of("Content-Type", "application/x-www-form-urlencoded"))
                        .code())
                .isEqualTo("UNSUPPORTED_MEDIA_TYPE");
        assertThat(session.post(decisionPath(), "{\"decision\":\"approve\",\"decision\":\"approve\"}")
                        .code())
                .isEqualTo("INVALID_REQUEST");
        assertThat(session.post(decisionPath(), "{\"decision\":\"yes\"}").code())
                .isEqualTo("INVALID_REQUEST");
        assertThat(session.post("/api/settings/safe-mode", "{\"on\":true}", noCsrf)
                        .code())
                .isEqualTo("CSRF_REQUIRED");
        assertThat(session.get("/api/settings/safe-mode").status()).isEqualTo(405);
        assertThat(admin.safeMode()).isFalse();
        assertStillPending();
    }

    @Test
    void anOversizedBodyIsRefusedUnread() throws Exception {
        // The declared length alone is refused: nothing is read (the client sends only a few bytes).
        RawHttp.Response r = session.post(
                decisionPath(), APPROVE, Map.of("Content-Length", Integer.toString(ConsoleServer.MAX_BODY + 1)));
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.code()).isEqualTo("BODY_TOO_LARGE");
        assertStillPending();
    }

    @Test
    void aLockedConsoleAcceptsNoDecisionAndNoSetting() throws Exception {
        Path policyFile = tmp.resolve("data/policy/policy.json");
        assertThat(session.post("/api/settings/policy", "{\"mode\":\"BLOCKED\",\"scopes\":[]}")
                        .status())
                .isEqualTo(200);
        byte[] before = Files.readAllBytes(policyFile);
        console.lock();
        assertThat(session.get("/api/session").json().path("locked").asBoolean())
                .isTrue();
        RawHttp.Response decision = session.post(decisionPath(), APPROVE);
        assertThat(decision.status()).isEqualTo(423);
        assertThat(decision.code()).isEqualTo("LOCKED");
        assertThat(session.post("/api/settings/policy", "{\"mode\":\"ASK_EACH_TIME\",\"scopes\":[]}")
                        .code())
                .isEqualTo("LOCKED");
        assertThat(session.post("/api/settings/safe-mode", "{\"on\":true}").code())
                .isEqualTo("LOCKED");
        assertThat(Files.readAllBytes(policyFile)).isEqualTo(before);
        assertThat(admin.safeMode()).isFalse();
        assertStillPending();
        console.unlock();
        assertThat(session.post(decisionPath(), "{\"decision\":\"deny\"}").status())
                .isEqualTo(200);
        ApprovalDecision d = answer.toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(d.isApproval()).isFalse();
        assertThat(((ApprovalDecision.Denied) d).code()).isEqualTo(ErrorCode.CONSENT_DENIED);
    }

    @Test
    void everyResponseCarriesTheStrictHeaders() throws Exception {
        for (String path : new String[] {"/", "/settings", "/static/console.js", "/api/requests", "/nowhere"}) {
            RawHttp.Response r = session.get(path);
            assertThat(r.header("Content-Security-Policy")).as(path).isEqualTo(ConsoleServer.CSP);
            assertThat(r.header("Content-Security-Policy"))
                    .contains("script-src 'self'")
                    .doesNotContain("unsafe");
            assertThat(r.header("X-Frame-Options")).isEqualTo("DENY");
            assertThat(r.header("Cache-Control")).contains("no-store");
            assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
            assertThat(r.headers().keySet()).noneMatch(k -> k.startsWith("access-control-"));
        }
        RawHttp.Response preflight = session.http.send(
                "OPTIONS",
                decisionPath(),
                Map.of(
                        "Cookie",
                        session.cookie,
                        "Origin",
                        "http://attacker.example",
                        "Access-Control-Request-Method",
                        "POST"),
                null);
        assertThat(preflight.status()).isEqualTo(403);
        assertThat(preflight.headers().keySet()).noneMatch(k -> k.startsWith("access-control-"));
        String html = session.get("/").text();
        assertThat(html)
                .doesNotContain("<script>")
                .doesNotContain("onclick")
                .doesNotContain("http://")
                .doesNotContain("https://");
    }

    @Test
    void theConsoleBindsLoopbackOnly() throws Exception {
        assertThatThrownBy(() -> ApprovalConsole.builder(admin).bindAddress(InetAddress.getByName("0.0.0.0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ApprovalConsole.builder(admin).bindAddress(InetAddress.getByName("192.0.2.1")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(InetAddress.getByName(console.baseUri().getHost()).isLoopbackAddress())
                .isTrue();
        try (ApprovalConsole v6 = ApprovalConsole.builder(admin)
                .bindAddress(InetAddress.getByName("::1"))
                .start()) {
            assertThat(v6.baseUri().getHost()).isEqualTo("[::1]");
            ConsoleSession s6 = ConsoleSession.open(v6);
            assertThat(s6.get("/api/session").status()).isEqualTo(200);
        } catch (java.io.UncheckedIOException e) {
            // No IPv6 loopback on this machine: the IPv4 checks above stand.
        }
    }

    @Test
    void anExpiredRequestRefusesALateClickAndDenies() throws Exception {
        try (ApprovalConsole quick = ApprovalConsole.builder(admin)
                .answerWindow(Duration.ofMillis(300))
                .start()) {
            ConsoleSession s = ConsoleSession.open(quick);
            ApprovalRequest r = Requests.execution(RunId.random(), "probe", "{}");
            CompletionStage<ApprovalDecision> late = quick.channel().request(r);
            ApprovalDecision d = late.toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(((ApprovalDecision.Denied) d).code()).isEqualTo(ErrorCode.CONSENT_TIMEOUT);
            RawHttp.Response click = s.post("/api/requests/" + r.proposal() + "/decision", APPROVE);
            assertThat(click.status()).isEqualTo(409);
            assertThat(click.json().path("state").asString()).isEqualTo("EXPIRED");
        }
    }

    @Test
    void aNewerRequestForTheSameRunAndSkillStalesTheOlderOne() throws Exception {
        ApprovalRequest newer = Requests.execution(request.run(), "probe", "{}");
        CompletionStage<ApprovalDecision> second = console.channel().request(newer);
        assertThat(answer.toCompletableFuture().get(10, TimeUnit.SECONDS).isApproval())
                .isFalse();
        RawHttp.Response click = session.post(decisionPath(), APPROVE);
        assertThat(click.json().path("state").asString()).isEqualTo("STALE");
        assertThat(console.cancel(request.run())).isEqualTo(1);
        assertThat(second.toCompletableFuture().get(10, TimeUnit.SECONDS).isApproval())
                .isFalse();
        assertThat(session.post("/api/requests/" + newer.proposal() + "/decision", APPROVE)
                        .json()
                        .path("state")
                        .asString())
                .isEqualTo("CANCELLED");
    }

    @Test
    void theChannelReachesNeitherTheAdminNorTheServer() {
        for (Class<?> c = console.channel().getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                assertThat(f.getType()).isNotIn(SkillGateAdmin.class, ConsoleServer.class, ApprovalConsole.class);
            }
        }
        CompletableFuture<?> unused = null;
        assertThat(unused).isNull();
    }
}
