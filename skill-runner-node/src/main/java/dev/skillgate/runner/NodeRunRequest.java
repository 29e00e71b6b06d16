package dev.skillgate.runner;

import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillContract;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apiguardian.api.API;

/**
 * What to run: the consented captured bytes, their expected revision, the checked invocation bytes
 * and the workspace. Everything is copied on construction (file contents too).
 *
 * <p>Shape checks only: the runner itself refuses, as envelopes, files that do not hash to the
 * revision, a manifest whose files or entrypoint are not among them, an oversized invocation and a
 * missing workspace. The caller is responsible for consent; the runner trusts that this request was
 * approved.
 *
 * @param runId the run this execution belongs to
 * @param manifest the checked execution manifest (entrypoint, timeout, output limit)
 * @param files every captured file, bundle-relative path to content
 * @param revision the revision the consent was bound to
 * @param invocation the checked invocation JSON bytes written to stdin
 * @param workspace the script's working directory (absolute)
 * @param workspaceIdentity if present, the device and inode consent bound the workspace to: the runner
 *     refuses a workspace that no longer has it ({@code WORKSPACE_CHANGED}) and hands it to the
 *     supervisor, which checks it again where it changes into the directory; if empty, the runner
 *     binds the launch to the identity of the directory it resolves itself
 * @param outputCheck decides whether stdout is an acceptable result
 * @param contract the skill's trust contract, if it has one: the runner asks the supervisor to confine
 *     writes and TCP to what its {@code permissionMode} and {@code networkDestinations} grant (hardening
 *     layer L2, where the kernel offers it); without a contract nothing but process reach is confined
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record NodeRunRequest(
        RunId runId,
        ExecutionManifest manifest,
        Map<PortablePath, byte[]> files,
        Revision revision,
        byte[] invocation,
        Path workspace,
        Optional<DirectoryIdentity> workspaceIdentity,
        OutputCheck outputCheck,
        Optional<SkillContract> contract) {

    /** A request for a skill without a trust contract. */
    public NodeRunRequest(
            RunId runId,
            ExecutionManifest manifest,
            Map<PortablePath, byte[]> files,
            Revision revision,
            byte[] invocation,
            Path workspace,
            Optional<DirectoryIdentity> workspaceIdentity,
            OutputCheck outputCheck) {
        this(runId, manifest, files, revision, invocation, workspace, workspaceIdentity, outputCheck, Optional.empty());
    }

    public NodeRunRequest {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(manifest, "manifest");
        Objects.requireNonNull(files, "files");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(invocation, "invocation");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(workspaceIdentity, "workspaceIdentity");
        Objects.requireNonNull(outputCheck, "outputCheck");
        Objects.requireNonNull(contract, "contract");
        TreeMap<PortablePath, byte[]> copy = new TreeMap<>();
        for (Map.Entry<PortablePath, byte[]> e : files.entrySet()) {
            copy.put(
                    Objects.requireNonNull(e.getKey(), "path"),
                    Objects.requireNonNull(e.getValue(), "content").clone());
        }
        files = Collections.unmodifiableMap(copy);
        invocation = invocation.clone();
        if (!workspace.isAbsolute()) {
            throw new IllegalArgumentException("the workspace must be an absolute path");
        }
    }

    /** A request without a bound workspace identity (the runner binds what it resolves itself). */
    public NodeRunRequest(
            RunId runId,
            ExecutionManifest manifest,
            Map<PortablePath, byte[]> files,
            Revision revision,
            byte[] invocation,
            Path workspace,
            OutputCheck outputCheck) {
        this(runId, manifest, files, revision, invocation, workspace, Optional.empty(), outputCheck);
    }

    /** The captured files; each content is a fresh copy. */
    @Override
    public Map<PortablePath, byte[]> files() {
        TreeMap<PortablePath, byte[]> copy = new TreeMap<>();
        files.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }

    /** A copy of the invocation bytes. */
    @Override
    public byte[] invocation() {
        return invocation.clone();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NodeRunRequest r)) {
            return false;
        }
        if (!r.files.keySet().equals(files.keySet())) {
            return false;
        }
        for (Map.Entry<PortablePath, byte[]> e : files.entrySet()) {
            if (!Arrays.equals(e.getValue(), r.files.get(e.getKey()))) {
                return false;
            }
        }
        return runId.equals(r.runId)
                && manifest.equals(r.manifest)
                && revision.equals(r.revision)
                && Arrays.equals(invocation, r.invocation)
                && workspace.equals(r.workspace)
                && workspaceIdentity.equals(r.workspaceIdentity)
                && outputCheck.equals(r.outputCheck)
                && contract.equals(r.contract);
    }

    @Override
    public int hashCode() {
        return Objects.hash(runId, manifest, revision, workspace);
    }

    @Override
    public String toString() {
        // Never prints file contents or the invocation.
        return "NodeRunRequest[run=" + runId + ", revision=" + revision + ", files=" + files.size() + ", invocation="
                + invocation.length + "B]";
    }
}
