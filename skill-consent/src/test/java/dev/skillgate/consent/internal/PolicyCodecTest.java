package dev.skillgate.consent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.Receipt;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PolicyCodecTest {
    static PolicySettings settings() {
        TrustScope scope = new TrustScope(
                Revision.compute(Map.of(PortablePath.of("a.mjs"), new byte[] {1})),
                AgentId.of("agent-1"),
                new WorkspaceIdentity(Path.of("/home/u/w\u00e9 \"q\"\\"), "(dev=2049,ino=131)"),
                new Timeout(1_000),
                new OutputLimit(262_144));
        return new PolicySettings(
                ExecutionPolicy.TRUST_SELECTED_REVISIONS,
                List.of(new ScopeEntry(
                        scope, Optional.of(new Receipt(UUID.randomUUID(), Instant.parse("2026-11-30T12:00:00.5Z"))))));
    }

    @Test
    void encodesTheDocumentedFormatAndDecodesItBack() {
        byte[] bytes = PolicyCodec.encode(settings());
        String text = new String(bytes, StandardCharsets.UTF_8);
        assertThat(text)
                .startsWith("{\n  \"format\": \"skillgate-execution-policy\",\n  \"version\": 1,\n  \"mode\": ")
                .contains("\"timeoutCeilingMillis\": 1000")
                .contains("\"outputCeilingBytes\": 262144")
                .contains("\"approvedAt\": \"2026-11-30T12:00:00.500Z\"")
                .endsWith("}\n");
        PolicyLoad load = PolicyCodec.decode(bytes);
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.FOUND);
        assertThat(PolicyCodec.encode(load.settings())).isEqualTo(bytes);
    }

    @Test
    void anUpdateIgnoresReceiptsButKeepsScopes() {
        byte[] bytes = PolicyCodec.encode(settings());
        PolicyUpdate update = PolicyCodec.decodeUpdate(bytes).orElseThrow();
        assertThat(update.mode()).isEqualTo(ExecutionPolicy.TRUST_SELECTED_REVISIONS);
        assertThat(update.scopes()).hasSize(1);
        PolicyUpdate minimal = PolicyCodec.decodeUpdate("{\"mode\":\"BLOCKED\"}".getBytes(StandardCharsets.UTF_8))
                .orElseThrow();
        assertThat(minimal).isEqualTo(PolicyUpdate.of(ExecutionPolicy.BLOCKED));
    }

    @Test
    void aDecodedFileMatchesTheSettingsExactly() {
        PolicySettings s = settings();
        PolicySettings decoded = PolicyCodec.decode(PolicyCodec.encode(s)).settings();
        assertThat(decoded).isEqualTo(s);
        assertThat(decoded.scopes().get(0).scope().workspace().realPath().toString())
                .isEqualTo("/home/u/w\u00e9 \"q\"\\");
    }
}
