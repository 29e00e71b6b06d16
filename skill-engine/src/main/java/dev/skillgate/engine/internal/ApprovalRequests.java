package dev.skillgate.engine.internal;

import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Text;
import dev.skillgate.protocol.Invocation;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
            Revision revision,
            Map<PortablePath, byte[]> files,
            ExecutionManifest manifest,
            Invocation invocation,
            List<String> argv,
            SupervisorSelection supervisor) {
        return ApprovalRequest.forProposal(
                proposal,
                describe(revision, files, manifest.entrypoint()),
                new InvocationPreview(PrettyJson.render(invocation.text()), invocation.digest()),
                argv,
                enforcement(manifest, supervisor));
    }

    /** The artifact as captured: every file with size and digest; the entrypoint source from the capture. */
    public static ArtifactDescription describe(
            Revision revision, Map<PortablePath, byte[]> files, PortablePath entrypoint) {
        List<ArtifactDescription.FileEntry> entries = new ArrayList<>(files.size());
        for (Map.Entry<PortablePath, byte[]> f : files.entrySet()) {
            entries.add(new ArtifactDescription.FileEntry(
                    f.getKey(), f.getValue().length, Sha256Digest.hash(f.getValue())));
        }
        byte[] source = files.get(entrypoint).clone();
        return new ArtifactDescription(revision, entries, entrypoint, () -> strictUtf8(source));
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

    private static String strictUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalStateException("the entrypoint is not valid UTF-8");
        }
    }
}
