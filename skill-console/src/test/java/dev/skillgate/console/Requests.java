package dev.skillgate.console;

import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Approval requests built directly, for the API tests that need a pending request but no run. */
final class Requests {
    private Requests() {}

    static ApprovalRequest execution(RunId run, String skill, String input) {
        byte[] source = "process.stdout.write('{}')".getBytes(StandardCharsets.UTF_8);
        Revision revision = new Revision(Sha256Digest.hash(source));
        Sha256Digest digest = Sha256Digest.hash(input.getBytes(StandardCharsets.UTF_8));
        ConsentBinding binding = new ConsentBinding(
                AgentId.of("agent-1"),
                run,
                new WorkspaceIdentity(Path.of("/tmp"), "(dev=1,ino=2)"),
                revision,
                digest,
                new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.0.0", Optional.empty()),
                Timeout.ofMillis(10_000),
                OutputLimit.ofBytes(65_536));
        ArtifactDescription artifact = new ArtifactDescription(
                revision,
                List.of(new ArtifactDescription.FileEntry(
                        PortablePath.of("scripts/run.mjs"), source.length, Sha256Digest.hash(source))),
                PortablePath.of("scripts/run.mjs"),
                () -> new String(source, StandardCharsets.UTF_8));
        Instant now = Instant.now();
        return new ApprovalRequest(
                ProposalId.random(),
                SkillName.of(skill),
                binding,
                artifact,
                new InvocationPreview(input, digest),
                List.of("/usr/bin/node", "scripts/run.mjs"),
                Enforcement.standard(binding.timeout(), binding.outputLimit()),
                now,
                now.plus(Duration.ofMinutes(5)));
    }
}
