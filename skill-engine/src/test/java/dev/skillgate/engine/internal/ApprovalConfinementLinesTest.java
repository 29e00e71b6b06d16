package dev.skillgate.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.InputType;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import dev.skillgate.runner.ResourceCeilings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The approval request lists exactly what the kernel will refuse and what it will not (decision
 * 0540): lines follow the supervisor's offered parts and the contract, and never claim a sandbox.
 */
class ApprovalConfinementLinesTest {
    private static final Confinement ALL =
            new Confinement(Confinement.Part.ENFORCED, Confinement.Part.ENFORCED, Confinement.Part.ENFORCED);

    static SkillContract contract(PermissionMode mode, List<NetworkDestination> destinations) {
        return new SkillContract(
                new SkillContract.Identity("acme/pdf-fill", SemVer.parse("1.2.0")),
                new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty()),
                List.of(new AgentRequirement("codex", SemVer.parse("1.0.0"), SemVer.parse("2.0.0"))),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM_READ),
                List.of(),
                mode,
                destinations,
                SideEffectClass.NONE);
    }

    record Lines(List<String> applied, List<String> notEnforced) {
        String all() {
            return String.join("\n", applied) + "\n--\n" + String.join("\n", notEnforced);
        }
    }

    static Lines lines(Confinement offered, Optional<SkillContract> c) {
        List<String> applied = new ArrayList<>();
        List<String> not = new ArrayList<>();
        ApprovalRequests.confinementLines(offered, c, applied, not);
        return new Lines(applied, not);
    }

    @Test
    void workspaceWriteWithoutDestinationsOnAKernelThatOffersEverything() {
        Lines l = lines(ALL, Optional.of(contract(PermissionMode.WORKSPACE_WRITE, List.of())));
        assertThat(String.join("\n", l.applied()))
                .contains("process reach: own PID namespace")
                .contains("refuses writes outside the run's HOME and TMPDIR and the workspace (workspace-write)")
                .contains("refuses every TCP connect and listen");
        assertThat(String.join("\n", l.notEnforced()))
                .contains("file reads")
                .contains("UDP, DNS and unix-socket connections")
                .contains("CPU, memory and process-count limits");
        assertThat(l.all().toLowerCase()).doesNotContain("sandbox");
    }

    @Test
    void destinationsAllowTheirPortsAndSayHostsAreNotChecked() {
        Lines l = lines(
                ALL,
                Optional.of(contract(
                        PermissionMode.READ_ONLY,
                        List.of(
                                NetworkDestination.parse("https://api.example.com"),
                                NetworkDestination.parse("https://x.example.com:8443")))));
        assertThat(l.applied()).anyMatch(s -> s.equals("TCP: connect only to port(s) 443, 8443; no listen"));
        assertThat(l.applied()).anyMatch(s -> s.contains("HOME and TMPDIR (read-only)"));
        assertThat(l.notEnforced()).contains("which hosts TCP reaches (only ports are checked)");
    }

    @Test
    void fullAccessAndNoContractSayWritesAreNotRestricted() {
        assertThat(lines(ALL, Optional.of(contract(PermissionMode.FULL_ACCESS, List.of())))
                        .notEnforced())
                .anyMatch(s -> s.startsWith("file writes (full-access"));
        Lines none = lines(ALL, Optional.empty());
        assertThat(none.notEnforced())
                .anyMatch(s -> s.startsWith("file writes (no trust contract"))
                .contains("network access (no trust contract)");
        // Process reach is confined at every permission mode, contract or not.
        assertThat(none.applied()).anyMatch(s -> s.startsWith("process reach"));
    }

    private static final Confinement SIX = new Confinement(
            Confinement.Part.ENFORCED,
            Confinement.Part.ENFORCED,
            Confinement.Part.ENFORCED,
            Confinement.Part.ENFORCED,
            Confinement.Part.NOT_ENFORCED,
            Confinement.Part.ENFORCED);
    private static final ResourceCeilings LIMITS = ResourceCeilings.NONE.withCgroupLimits(
            OptionalLong.of(1_048_576), OptionalLong.of(64), OptionalLong.empty());

    static Lines lines(Confinement offered, Optional<SkillContract> c, ResourceCeilings ceilings) {
        List<String> applied = new ArrayList<>();
        List<String> not = new ArrayList<>();
        ApprovalRequests.confinementLines(offered, c, ceilings, applied, not);
        return new Lines(applied, not);
    }

    @Test
    void eachCgroupLimitAskedForIsSaidOnItsOwn() {
        Lines l = lines(SIX, Optional.of(contract(PermissionMode.WORKSPACE_WRITE, List.of())), LIMITS);
        assertThat(l.applied()).contains("memory: the run's cgroup is limited to 1048576 bytes");
        assertThat(l.notEnforced())
                .contains("process count limit of 64 processes (no delegated cgroup with that controller here)")
                .contains("CPU limit (none asked for)")
                .doesNotContain("CPU, memory and process-count limits");
    }

    @Test
    void aCgroupLimitTheScriptCouldRewriteIsNotSaidEnforced() {
        for (Optional<SkillContract> c : List.of(
                Optional.<SkillContract>empty(), Optional.of(contract(PermissionMode.FULL_ACCESS, List.of())))) {
            Lines l = lines(SIX, c, LIMITS);
            assertThat(l.applied()).noneMatch(s -> s.contains("cgroup is limited"));
            assertThat(l.notEnforced())
                    .contains("memory limit of 1048576 bytes (written, but the script could rewrite it without a"
                            + " file-write allow-list)");
        }
    }

    @Test
    void aKernelThatOffersNothingIsSaidPartByPart() {
        Lines l = lines(Confinement.UNAVAILABLE, Optional.of(contract(PermissionMode.WORKSPACE_WRITE, List.of())));
        assertThat(l.applied()).isEmpty();
        assertThat(String.join("\n", l.notEnforced()))
                .contains("process reach")
                .contains("workspace-write is declared, but this kernel or supervisor cannot enforce it")
                .contains("networkDestinations is declared, but this kernel or supervisor cannot enforce it");
    }
}
