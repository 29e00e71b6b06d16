package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsentBindingDigestTest {

    @Test
    void equalBindingsHaveEqualDigestsAndEveryFieldChangesIt() {
        ConsentBinding base = Fixtures.binding();
        assertThat(Fixtures.binding().digest()).isEqualTo(base.digest());
        List<ConsentBinding> variants = List.of(
                new ConsentBinding(
                        AgentId.of("agent-2"),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        base.runtime(),
                        base.timeout(),
                        base.outputLimit()),
                Fixtures.binding(RunId.of("run-2")),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        new WorkspaceIdentity(Path.of("/home/u/other"), "(dev=1,ino=2)"),
                        base.revision(),
                        base.invocationDigest(),
                        base.runtime(),
                        base.timeout(),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        new WorkspaceIdentity(Path.of("/home/u/work"), "(dev=1,ino=3)"),
                        base.revision(),
                        base.invocationDigest(),
                        base.runtime(),
                        base.timeout(),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        Fixtures.revision("other"),
                        base.invocationDigest(),
                        base.runtime(),
                        base.timeout(),
                        base.outputLimit()),
                Fixtures.bindingWithInput("{}"),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        new RuntimeIdentity(Path.of("/opt/node"), "v20.20.2", Optional.empty()),
                        base.timeout(),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.3", Optional.empty()),
                        base.timeout(),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        new RuntimeIdentity(
                                Path.of("/usr/bin/node"), "v20.20.2", Optional.of(Sha256Digest.hash(new byte[] {1}))),
                        base.timeout(),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        base.runtime(),
                        new Timeout(1000),
                        base.outputLimit()),
                new ConsentBinding(
                        base.agent(),
                        base.run(),
                        base.workspace(),
                        base.revision(),
                        base.invocationDigest(),
                        base.runtime(),
                        base.timeout(),
                        new OutputLimit(1)));
        Set<Sha256Digest> digests = new HashSet<>();
        digests.add(base.digest());
        for (ConsentBinding v : variants) {
            assertThat(v).isNotEqualTo(base);
            digests.add(v.digest());
        }
        assertThat(digests).hasSize(variants.size() + 1);
    }

    @Test
    void digestIsTheDocumentedFraming() throws Exception {
        ConsentBinding b = Fixtures.binding();
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (String f : List.of(
                "skillgate-consent/v1/binding",
                "agent-1",
                "run-1",
                "/home/u/work",
                "(dev=1,ino=2)",
                b.revision().toString(),
                b.invocationDigest().toString(),
                "/usr/bin/node",
                "v20.20.2",
                "",
                "60000",
                "65536")) {
            byte[] bytes = f.getBytes(StandardCharsets.UTF_8);
            md.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            md.update(bytes);
        }
        assertThat(b.digest()).isEqualTo(Sha256Digest.of(md.digest()));
    }
}
