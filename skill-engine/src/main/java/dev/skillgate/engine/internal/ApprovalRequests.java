package dev.skillgate.engine.internal;

import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.Enforcement;
import dev.skillgate.consent.InvocationPreview;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.Invocation;
import dev.skillgate.runner.ResourceCeilings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

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
            Optional<SkillContract> contract,
            Optional<dev.skillgate.consent.SkillLocation> location) {
        return build(
                proposal, artifact, manifest, invocation, argv, supervisor, contract, location, ResourceCeilings.NONE);
    }

    /** The request for {@code proposal}, naming each cgroup limit {@code ceilings} asks for. */
    public static ApprovalRequest build(
            ProposalSnapshot proposal,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            List<String> argv,
            SupervisorSelection supervisor,
            Optional<SkillContract> contract,
            Optional<dev.skillgate.consent.SkillLocation> location,
            ResourceCeilings ceilings) {
        return ApprovalRequest.forProposal(
                proposal,
                describe(artifact, manifest.entrypoint()),
                new InvocationPreview(PrettyJson.render(invocation.text()), invocation.digest()),
                argv,
                enforcement(manifest, supervisor, contract, ceilings),
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

    static Enforcement enforcement(
            ExecutionManifest manifest,
            SupervisorSelection supervisor,
            Optional<SkillContract> contract,
            ResourceCeilings ceilings) {
        Enforcement standard = Enforcement.standard(manifest.timeout(), manifest.maxOutputBytes());
        List<String> applied = new ArrayList<>(standard.applied());
        List<String> notEnforced = new ArrayList<>();
        applied.add(
                supervisor.provesCleanup()
                        ? "process tree supervised by " + Text.excerpt(supervisor.name())
                                + ": its end is proven after the run"
                        : "process tree supervised by " + Text.excerpt(supervisor.name())
                                + ": its end cannot be proven (the run ends CLEANUP_UNKNOWN)");
        applied.add("invocation at most " + Limits.INVOCATION_BYTES + " bytes, checked against inputSchema");
        confinementLines(supervisor.confinement(), contract, ceilings, applied, notEnforced);
        return new Enforcement(applied, notEnforced);
    }

    /**
     * Exactly what the kernel will refuse and what it will not (decision 0540): the parts the
     * supervisor enforces here, which the launch then requires, and everything else said as not
     * enforced. Never a sandbox claim.
     */
    static void confinementLines(
            Confinement offered, Optional<SkillContract> contract, List<String> applied, List<String> notEnforced) {
        confinementLines(offered, contract, ResourceCeilings.NONE, applied, notEnforced);
    }

    /**
     * As above, with the cgroup limits {@code ceilings} asks for: each said enforced only when the
     * supervisor offers its controller and the script cannot rewrite it (a file-write allow-list
     * applies, decision 0543); otherwise said not enforced with the reason.
     */
    static void confinementLines(
            Confinement offered,
            Optional<SkillContract> contract,
            ResourceCeilings ceilings,
            List<String> applied,
            List<String> notEnforced) {
        boolean process = offered.processReach() == Confinement.Part.ENFORCED;
        boolean files = offered.fileWrites() == Confinement.Part.ENFORCED;
        boolean tcp = offered.network() == Confinement.Part.ENFORCED;
        if (process) {
            applied.add("process reach: own PID namespace; the kernel refuses it signals, prlimit, scheduling"
                    + " and ptrace of any process outside its run");
        } else {
            notEnforced.add("process reach (the script can signal, re-prioritise or limit your other processes)");
        }
        Optional<PermissionMode> mode = contract.map(SkillContract::permissionMode);
        if (mode.isEmpty() || mode.get() == PermissionMode.FULL_ACCESS) {
            notEnforced.add("file writes (" + (mode.isEmpty() ? "no trust contract" : "full-access")
                    + ": the script can write what your user can)");
        } else if (files) {
            applied.add("file writes: the kernel refuses writes outside the run's HOME and TMPDIR"
                    + (mode.get() == PermissionMode.WORKSPACE_WRITE ? " and the workspace" : "")
                    + " (" + mode.get().wireName() + ")");
        } else {
            notEnforced.add("file writes (" + mode.get().wireName()
                    + " is declared, but this kernel or supervisor cannot enforce it)");
        }
        notEnforced.add("file reads (the script can read what your user can)");
        if (contract.isEmpty()) {
            notEnforced.add("network access (no trust contract)");
        } else if (tcp) {
            List<NetworkDestination> destinations = contract.get().networkDestinations();
            if (destinations.isEmpty()) {
                applied.add("TCP: the kernel refuses every TCP connect and listen (no networkDestinations)");
            } else {
                String ports = destinations.stream()
                        .map(d -> Integer.toString(d.port()))
                        .distinct()
                        .sorted()
                        .collect(Collectors.joining(", "));
                String line = "TCP: connect only to port(s) " + ports + "; no listen";
                applied.add(
                        line.length() <= 200
                                ? line
                                : "TCP: connect only to the declared ports (" + destinations.size()
                                        + " destinations); no listen");
                notEnforced.add("which hosts TCP reaches (only ports are checked)");
            }
            notEnforced.add("UDP, DNS and unix-socket connections");
        } else {
            notEnforced.add("network access (networkDestinations is declared, but this kernel or supervisor"
                    + " cannot enforce it)");
        }
        if (ceilings.memoryBytes().isEmpty()
                && ceilings.processes().isEmpty()
                && ceilings.cpuPercent().isEmpty()) {
            notEnforced.add("CPU, memory and process-count limits");
            return;
        }
        boolean allowList = files && mode.isPresent() && mode.get() != PermissionMode.FULL_ACCESS;
        limitLine("memory", ceilings.memoryBytes(), " bytes", offered.memory(), allowList, applied, notEnforced);
        limitLine(
                "process count",
                ceilings.processes(),
                " processes",
                offered.processCount(),
                allowList,
                applied,
                notEnforced);
        limitLine("CPU", ceilings.cpuPercent(), "% of one CPU", offered.cpu(), allowList, applied, notEnforced);
    }

    private static void limitLine(
            String name,
            OptionalLong asked,
            String unit,
            Confinement.Part offered,
            boolean allowList,
            List<String> applied,
            List<String> notEnforced) {
        if (asked.isEmpty()) {
            notEnforced.add(name + " limit (none asked for)");
        } else if (offered != Confinement.Part.ENFORCED) {
            notEnforced.add(name + " limit of " + asked.getAsLong() + unit
                    + " (no delegated cgroup with that controller here)");
        } else if (!allowList) {
            notEnforced.add(name + " limit of " + asked.getAsLong() + unit
                    + " (written, but the script could rewrite it without a file-write allow-list)");
        } else {
            applied.add(name + ": the run's cgroup is limited to " + asked.getAsLong() + unit);
        }
    }
}
