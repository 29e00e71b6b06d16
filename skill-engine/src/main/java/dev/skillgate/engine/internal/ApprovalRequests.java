package dev.skillgate.engine.internal;

import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Text;
import dev.skillgate.protocol.Invocation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the {@link ApprovalRequest} a human sees, entirely from the immutable capture and the
 * validated invocation: every captured file with size and SHA-256, the entrypoint's source on
 * demand, the pretty-printed invocation with the digest of the exact bytes, the argv, the limits,
 * what is and is not enforced ({@code isolation: none}) and the full-trust warning.
 */
public final class ApprovalRequests {
    private ApprovalRequests() {}

    /** The request for {@code proposal}. */
    public static ApprovalRequest build(
            ProposalSnapshot proposal,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            List<String> argv,
            SupervisorSelection supervisor,
            Optional<dev.skillgate.consent.SkillLocation> location) {
        return ApprovalRequest.forProposal(
                proposal,
                describe(artifact, manifest.entrypoint()),
                new InvocationPreview(PrettyJson.render(invocation.text()), invocation.digest()),
                argv,
                enforcement(manifest, supervisor),
                location);
    }

    /**
     * The artifact as captured: every file with size and digest; the entrypoint's source, taken from
     * the capture now (strict UTF-8 there), so the request stays readable after the capture is
     * disposed.
     */
    public static ArtifactDescription describe(SkillArtifact artifact, PortablePath entrypoint) {
        List<ArtifactDescription.FileEntry> entries = new ArrayList<>();
        for (CapturedFile f : artifact.files()) {
            entries.add(new ArtifactDescription.FileEntry(f.path(), f.size(), f.sha256()));
        }
        Optional<String> source = artifact.entrypointSource();
        return new ArtifactDescription(
                artifact.revision(),
                entries,
                entrypoint,
                () -> source.orElseThrow(() -> new IllegalStateException("the entrypoint source is unavailable")));
    }

    static Enforcement enforcement(ExecutionManifest manifest, SupervisorSelection supervisor) {
        Enforcement standard = Enforcement.standard(manifest.timeout(), manifest.maxOutputBytes());
        List<String> applied = new ArrayList<>(standard.applied());
        applied.add(
                supervisor.provesCleanup()
                        ? "process tree supervised by " + Text.excerpt(supervisor.name())
                                + ": its end is proven after the run"
                        : "process tree supervised by " + Text.excerpt(supervisor.name())
                                + ": its end cannot be proven (the run ends CLEANUP_UNKNOWN)");
        applied.add("invocation at most " + Limits.INVOCATION_BYTES + " bytes, checked against inputSchema");
        return new Enforcement(applied, standard.notEnforced());
    }
}
