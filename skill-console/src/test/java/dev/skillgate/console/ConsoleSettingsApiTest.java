package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.engine.SkillGateAdmin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The settings API regressions (the seed's policy suite) against the real server over a real admin
 * and its private policy file: restarts are a new admin and a new console over the same data
 * directory.
 */
class ConsoleSettingsApiTest {
    private static final String REV_A = "sha256:" + "a".repeat(64);
    private static final String REV_B = "sha256:" + "b".repeat(64);

    @TempDir
    Path tmp;

    private Path data;
    private Path workspace;
    private String realPath;
    private String fileKey;
    private SkillGateAdmin admin;
    private ApprovalConsole console;
    private ConsoleSession session;

    @BeforeEach
    void start() throws IOException {
        data = tmp.resolve("data");
        workspace = Files.createDirectories(tmp.resolve("workspace"));
        var identity = SkillGateAdmin.workspaceIdentity(workspace).orElseThrow();
        realPath = identity.realPath().toString();
        fileKey = identity.fileKey();
        open();
    }

    private void open() throws IOException {
        admin = SkillGateAdmin.open(data);
        console = ApprovalConsole.builder(admin).start();
        session = ConsoleSession.open(console);
    }

    private void restart() throws IOException {
        console.close();
        admin.close();
        open();
    }

    @AfterEach
    void stop() {
        console.close();
        admin.close();
    }

    private String scope(String revision, int timeout) {
        return "{\"revision\":\"" + revision + "\",\"agent\":\"agent-1\",\"workspace\":{\"realPath\":\"" + realPath
                + "\",\"fileKey\":\"" + fileKey + "\"},\"timeoutCeilingMillis\":" + timeout
                + ",\"outputCeilingBytes\":65536}";
    }

    private String withReceipt(String scope, String id, String at) {
        return scope.substring(0, scope.length() - 1) + ",\"receipt\":{\"id\":\"" + id + "\",\"approvedAt\":\"" + at
                + "\"}}";
    }

    private JsonNode save(String mode, String... scopes) throws IOException {
        RawHttp.Response r = session.post(
                "/api/settings/policy", "{\"mode\":\"" + mode + "\",\"scopes\":[" + String.join(",", scopes) + "]}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("policy");
    }

    private JsonNode settings() throws IOException {
        RawHttp.Response r = session.get("/api/settings");
        assertThat(r.status()).isEqualTo(200);
        return r.json();
    }

    private static JsonNode receipt(JsonNode policy, String revision) {
        for (JsonNode s : policy.path("scopes")) {
            if (s.path("revision").asString().equals(revision)) {
                return s.path("receipt");
            }
        }
        throw new AssertionError("no scope " + revision + " in " + policy);
    }

    private byte[] policyFile() throws IOException {
        return Files.readAllBytes(data.resolve("policy/policy.json"));
    }

    @Test
    void theModePersistsAcrossARestart() throws Exception {
        assertThat(settings().path("policy").path("mode").asString()).isEqualTo("ASK_EACH_TIME");
        save("BLOCKED");
        restart();
        assertThat(settings().path("policy").path("mode").asString()).isEqualTo("BLOCKED");
        save("APPROVE_WORKFLOW_RUN");
        restart();
        assertThat(settings().path("policy").path("mode").asString()).isEqualTo("APPROVE_WORKFLOW_RUN");
    }

    @Test
    void aMalformedPolicyIsRefusedAndTheFileStaysByteIdentical() throws Exception {
        save("TRUST_SELECTED_REVISIONS", scope(REV_A, 10_000));
        byte[] before = policyFile();
        String[] bad = {
            "{\"mode\":\"EVERYTHING\",\"scopes\":[]}",
            "{\"mode\":\"BLOCKED\",\"scopes\":[],\"extra\":1}",
            "{\"mode\":\"BLOCKED\",\"mode\":\"ASK_EACH_TIME\",\"scopes\":[]}",
            "{\"mode\":\"TRUST_SELECTED_REVISIONS\",\"scopes\":[" + scope("sha256:XYZ", 10_000) + "]}",
            "{\"mode\":\"TRUST_SELECTED_REVISIONS\",\"scopes\":[" + scope(REV_B, 999_999) + "]}",
            "{\"mode\":\"TRUST_SELECTED_REVISIONS\",\"scopes\":[" + scope(REV_B, 10_000) + "," + scope(REV_B, 10_000)
                    + "]}",
            "{\"mode\":\"BLOCKED\"",
            "[]",
            ""
        };
        for (String body : bad) {
            RawHttp.Response r = session.post("/api/settings/policy", body);
            assertThat(r.status()).as(body).isIn(400, 422);
            assertThat(r.code()).as(body).isEqualTo("SETTING_REFUSED");
            assertThat(policyFile()).as(body).isEqualTo(before);
        }
        assertThat(settings().path("policy").path("mode").asString()).isEqualTo("TRUST_SELECTED_REVISIONS");
    }

    @Test
    void receiptsAreMintedByTheServerAndSubmittedOnesIgnored() throws Exception {
        String forgedId = "00000000-0000-4000-8000-000000000000";
        String forgedAt = "2000-01-01T00:00:00Z";
        JsonNode policy = save("TRUST_SELECTED_REVISIONS", withReceipt(scope(REV_A, 10_000), forgedId, forgedAt));
        JsonNode receipt = receipt(policy, REV_A);
        assertThat(receipt.path("id").asString()).isNotEmpty().isNotEqualTo(forgedId);
        assertThat(receipt.path("approvedAt").asString()).isNotEqualTo(forgedAt);
        assertThat(new String(policyFile(), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain(forgedId)
                .doesNotContain(forgedAt);
    }

    @Test
    void anUnchangedScopeKeepsItsReceiptAcrossSavesAndRestarts() throws Exception {
        JsonNode first = receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_A, 10_000)), REV_A);
        JsonNode second = receipt(
                save(
                        "TRUST_SELECTED_REVISIONS",
                        withReceipt(
                                scope(REV_A, 10_000), "11111111-1111-4111-8111-111111111111", "2001-01-01T00:00:00Z"),
                        scope(REV_B, 10_000)),
                REV_A);
        assertThat(second).isEqualTo(first);
        restart();
        assertThat(receipt(settings().path("policy"), REV_A)).isEqualTo(first);
        assertThat(receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_A, 10_000)), REV_A))
                .isEqualTo(first);
    }

    @Test
    void aChangedScopeGetsANewReceipt() throws Exception {
        JsonNode first = receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_A, 10_000)), REV_A);
        JsonNode changed = receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_A, 20_000)), REV_A);
        assertThat(changed.path("id").asString()).isNotEqualTo(first.path("id").asString());
        assertThat(settings().path("policy").path("scopes")).hasSize(1);
    }

    @Test
    void aRevokedScopeIsGoneAndReAddingMintsANewReceipt() throws Exception {
        JsonNode first = receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_A, 10_000), scope(REV_B, 10_000)), REV_A);
        JsonNode removed = save("TRUST_SELECTED_REVISIONS", scope(REV_B, 10_000));
        assertThat(removed.path("scopes")).hasSize(1);
        assertThat(removed.path("scopes").get(0).path("revision").asString()).isEqualTo(REV_B);
        JsonNode again = receipt(save("TRUST_SELECTED_REVISIONS", scope(REV_B, 10_000), scope(REV_A, 10_000)), REV_A);
        assertThat(again.path("id").asString()).isNotEqualTo(first.path("id").asString());
    }

    @Test
    void draftsSavedInAnotherModeStayUnapproved() throws Exception {
        JsonNode policy = save("ASK_EACH_TIME", scope(REV_A, 10_000));
        assertThat(policy.path("scopes").get(0).has("receipt")).isFalse();
        restart();
        assertThat(settings().path("policy").path("scopes").get(0).has("receipt"))
                .isFalse();
        JsonNode blocked = save("BLOCKED", scope(REV_A, 10_000), scope(REV_B, 10_000));
        assertThat(blocked.path("scopes"))
                .allSatisfy(s -> assertThat(s.has("receipt")).isFalse());
    }

    @Test
    void refusedRequestsChangeNoSetting() throws Exception {
        save("ASK_EACH_TIME");
        byte[] before = policyFile();
        String body = "{\"mode\":\"TRUST_SELECTED_REVISIONS\",\"scopes\":[" + scope(REV_A, 10_000) + "]}";
        Map<String, String> noToken = new HashMap<>();
        noToken.put("Cookie", null);
        Map<String, String> noCsrf = new HashMap<>();
        noCsrf.put("X-CSRF-Token", null);
        assertThat(session.post("/api/settings/policy", body, noToken).code()).isEqualTo("TOKEN_REQUIRED");
        assertThat(session.post("/api/settings/policy", body, Map.of("Origin", "http://evil.example"))
                        .code())
                .isEqualTo("ORIGIN_REFUSED");
        assertThat(session.post("/api/settings/policy", body, Map.of("Host", "evil.example"))
                        .code())
                .isEqualTo("HOST_REFUSED");
        assertThat(session.post("/api/settings/policy", body, noCsrf).code()).isEqualTo("CSRF_REQUIRED");
        assertThat(session.get("/api/settings/policy?mode=TRUST_SELECTED_REVISIONS")
                        .code())
                .isEqualTo("METHOD_NOT_ALLOWED");
        assertThat(session.post("/api/settings/safe-mode", "{\"on\":true}", noCsrf)
                        .code())
                .isEqualTo("CSRF_REQUIRED");
        assertThat(policyFile()).isEqualTo(before);
        assertThat(admin.safeMode()).isFalse();
    }

    @Test
    void safeModeAndAuditStatusAreShownAndSafeModeSwitches() throws Exception {
        RawHttp.Response on = session.post("/api/settings/safe-mode", "{\"on\":true}");
        assertThat(on.status()).isEqualTo(200);
        assertThat(admin.safeMode()).isTrue();
        JsonNode s = settings();
        assertThat(s.path("policy").path("safeMode").asBoolean()).isTrue();
        assertThat(s.path("audit").path("state").asString()).isIn("OK", "VERIFYING");
        session.post("/api/settings/safe-mode", "{\"on\":false}");
        assertThat(admin.safeMode()).isFalse();
    }
}
