package dev.skillgate.inspect.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each enforcement code of {@link ContractCheck}, with a context that fails and one that passes. */
class ContractCheckTest {
    private static SkillContract contract(
            List<AgentRequirement> agents,
            Set<InputType> inputs,
            Set<ToolClass> tools,
            List<String> credentials,
            PermissionMode mode,
            List<NetworkDestination> destinations,
            SideEffectClass sideEffect) {
        return new SkillContract(
                new SkillContract.Identity("global/review", SemVer.parse("1.0.0")),
                new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty()),
                agents,
                inputs,
                tools,
                credentials,
                mode,
                destinations,
                sideEffect);
    }

    private static final List<AgentRequirement> CODEX =
            List.of(new AgentRequirement("codex", SemVer.parse("0.130.0"), SemVer.parse("0.200.0")));

    private static SkillContract basic() {
        return contract(
                CODEX,
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM_READ),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
    }

    private static AgentContext context(String version, PermissionMode granted) {
        return AgentContext.of(
                "codex", SemVer.parse(version), Set.of(InputType.TEXT), Set.of(ToolClass.FILESYSTEM_READ), granted);
    }

    private static List<ErrorCode> codes(List<Diagnostic> problems) {
        return problems.stream().map(Diagnostic::code).toList();
    }

    @Test
    void aFittingContextPasses() {
        assertThat(ContractCheck.check(basic(), context("0.150.0", PermissionMode.READ_ONLY)))
                .isEmpty();
        assertThat(ContractCheck.fits(basic(), context("0.150.0", PermissionMode.FULL_ACCESS)))
                .isTrue();
    }

    @ParameterizedTest
    @CsvSource({
        "0.130.0, true",
        "0.200.0, true",
        "0.129.9, false",
        "0.200.1, false",
        "0.130.0-rc.1, false",
        "0.200.0-rc.1, true",
        "0.200.0+build.7, true",
        "1.0.0, false"
    })
    void agentVersionRangeIsInclusiveSemVerPrecedence(String version, boolean fits) {
        List<Diagnostic> problems = ContractCheck.check(basic(), context(version, PermissionMode.READ_ONLY));
        if (fits) {
            assertThat(problems).isEmpty();
        } else {
            assertThat(problems).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_AGENT_INCOMPATIBLE);
                assertThat(d.location()).isEqualTo("/agents");
                assertThat(d.message()).contains("outside every version range");
            });
        }
    }

    @Test
    void unknownAgentKindIsIncompatible() {
        AgentContext other = AgentContext.of(
                "claude-code",
                SemVer.parse("0.150.0"),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM_READ),
                PermissionMode.READ_ONLY);
        assertThat(ContractCheck.check(basic(), other)).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_AGENT_INCOMPATIBLE);
            assertThat(d.message()).contains("does not list agent kind");
        });
        SkillContract both = contract(
                List.of(
                        CODEX.get(0),
                        new AgentRequirement("claude-code", SemVer.parse("0.1.0"), SemVer.parse("9.0.0"))),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM_READ),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
        assertThat(ContractCheck.check(both, other)).isEmpty();
    }

    @Test
    void missingInputTypes() {
        SkillContract needsImages = contract(
                CODEX,
                Set.of(InputType.TEXT, InputType.IMAGE, InputType.AUDIO),
                Set.of(),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
        List<Diagnostic> problems = ContractCheck.check(needsImages, context("0.150.0", PermissionMode.READ_ONLY));
        assertThat(codes(problems))
                .containsExactly(ErrorCode.CONTRACT_INPUT_TYPE_MISSING, ErrorCode.CONTRACT_INPUT_TYPE_MISSING);
        assertThat(problems).extracting(Diagnostic::message).anyMatch(m -> m.contains("'image'"));
        AgentContext rich = AgentContext.of(
                "codex", SemVer.parse("0.150.0"), Set.of(InputType.values()), Set.of(), PermissionMode.READ_ONLY);
        assertThat(ContractCheck.check(needsImages, rich)).isEmpty();
    }

    @Test
    void missingToolClasses() {
        SkillContract needsShell = contract(
                CODEX,
                Set.of(),
                Set.of(ToolClass.SHELL, ToolClass.FILESYSTEM_READ),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
        assertThat(ContractCheck.check(needsShell, context("0.150.0", PermissionMode.READ_ONLY)))
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_TOOL_MISSING);
                    assertThat(d.location()).isEqualTo("/tools");
                    assertThat(d.message()).contains("'shell'");
                });
        AgentContext withShell = AgentContext.of(
                "codex",
                SemVer.parse("0.150.0"),
                Set.of(),
                Set.of(ToolClass.SHELL, ToolClass.FILESYSTEM),
                PermissionMode.READ_ONLY);
        // filesystem (read and write) satisfies a need for filesystem-read.
        assertThat(ContractCheck.check(needsShell, withShell)).isEmpty();
        SkillContract needsWrite = contract(
                CODEX,
                Set.of(),
                Set.of(ToolClass.FILESYSTEM),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
        // ... but filesystem-read does not satisfy filesystem.
        assertThat(codes(ContractCheck.check(needsWrite, context("0.150.0", PermissionMode.READ_ONLY))))
                .containsExactly(ErrorCode.CONTRACT_TOOL_MISSING);
    }

    @Test
    void destinationsNeedTheNetworkTool() {
        SkillContract calls = contract(
                CODEX,
                Set.of(),
                Set.of(),
                List.of(),
                PermissionMode.READ_ONLY,
                List.of(NetworkDestination.parse("https://api.example.com")),
                SideEffectClass.NONE);
        assertThat(ContractCheck.check(calls, context("0.150.0", PermissionMode.READ_ONLY)))
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_TOOL_MISSING);
                    assertThat(d.location()).isEqualTo("/networkDestinations");
                });
        AgentContext networked = AgentContext.of(
                "codex", SemVer.parse("0.150.0"), Set.of(), Set.of(ToolClass.NETWORK), PermissionMode.READ_ONLY);
        assertThat(ContractCheck.check(calls, networked)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "read-only, none, read-only, true",
        "workspace-write, none, read-only, false",
        "workspace-write, workspace-write, workspace-write, true",
        "workspace-write, workspace-write, read-only, false",
        "full-access, none, workspace-write, false",
        "full-access, none, full-access, true",
        "workspace-write, none, full-access, true"
    })
    void permissionEscalation(String asked, String sideEffect, String granted, boolean fits) {
        SkillContract c = contract(
                CODEX,
                Set.of(),
                Set.of(),
                List.of(),
                PermissionMode.fromWireName(asked),
                List.of(),
                SideEffectClass.fromWireName(sideEffect));
        List<Diagnostic> problems = ContractCheck.check(c, context("0.150.0", PermissionMode.fromWireName(granted)));
        if (fits) {
            assertThat(problems).isEmpty();
        } else {
            assertThat(problems).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_PERMISSION_ESCALATION);
                assertThat(d.location()).isEqualTo("/permissionMode");
            });
        }
    }

    @Test
    void externalWriteWithAWorkspaceGrantPassesAndWithReadOnlyEscalates() {
        SkillContract external = contract(
                CODEX,
                Set.of(),
                Set.of(ToolClass.NETWORK),
                List.of(),
                PermissionMode.WORKSPACE_WRITE,
                List.of(NetworkDestination.parse("https://api.example.com")),
                SideEffectClass.EXTERNAL_WRITE);
        AgentContext readOnly = AgentContext.of(
                "codex", SemVer.parse("0.150.0"), Set.of(), Set.of(ToolClass.NETWORK), PermissionMode.READ_ONLY);
        assertThat(codes(ContractCheck.check(external, readOnly)))
                .containsExactly(ErrorCode.CONTRACT_PERMISSION_ESCALATION);
        AgentContext workspace = AgentContext.of(
                "codex", SemVer.parse("0.150.0"), Set.of(), Set.of(ToolClass.NETWORK), PermissionMode.WORKSPACE_WRITE);
        assertThat(ContractCheck.check(external, workspace)).isEmpty();
    }

    @Test
    void credentialsNeedABrokerAndAvailability() {
        SkillContract wants = contract(
                CODEX,
                Set.of(),
                Set.of(),
                List.of("GITHUB_TOKEN", "NPM_TOKEN"),
                PermissionMode.READ_ONLY,
                List.of(),
                SideEffectClass.NONE);
        AgentContext holds = new AgentContext(
                "codex",
                SemVer.parse("0.150.0"),
                Set.of(),
                Set.of(),
                PermissionMode.READ_ONLY,
                Set.of("GITHUB_TOKEN", "NPM_TOKEN"));
        assertThat(ContractCheck.check(wants, holds)).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_CREDENTIALS_UNSUPPORTED);
            assertThat(d.location()).isEqualTo("/credentials");
        });
        CredentialBroker all = name -> true;
        assertThat(ContractCheck.check(wants, holds, Optional.of(all))).isEmpty();
        CredentialBroker onlyGithub = "GITHUB_TOKEN"::equals;
        assertThat(ContractCheck.check(wants, holds, Optional.of(onlyGithub)))
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_CREDENTIAL_UNAVAILABLE);
                    assertThat(d.location()).isEqualTo("/credentials/1");
                });
        AgentContext holdsOne = new AgentContext(
                "codex", SemVer.parse("0.150.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY, Set.of("NPM_TOKEN"));
        assertThat(ContractCheck.check(wants, holdsOne, Optional.of(all)))
                .extracting(Diagnostic::location)
                .containsExactly("/credentials/0");
        // No credentials declared: no broker needed.
        assertThat(ContractCheck.check(basic(), context("0.150.0", PermissionMode.READ_ONLY), Optional.empty()))
                .isEmpty();
    }

    @Test
    void everyFailureIsReportedInAFixedOrderAndTheCheckIsPure() {
        SkillContract greedy = contract(
                CODEX,
                Set.of(InputType.VIDEO),
                Set.of(ToolClass.BROWSER),
                List.of("TOKEN"),
                PermissionMode.FULL_ACCESS,
                List.of(),
                SideEffectClass.NONE);
        AgentContext poor = context("9.9.9", PermissionMode.READ_ONLY);
        List<Diagnostic> first = ContractCheck.check(greedy, poor);
        assertThat(codes(first))
                .containsExactly(
                        ErrorCode.CONTRACT_AGENT_INCOMPATIBLE,
                        ErrorCode.CONTRACT_INPUT_TYPE_MISSING,
                        ErrorCode.CONTRACT_TOOL_MISSING,
                        ErrorCode.CONTRACT_PERMISSION_ESCALATION,
                        ErrorCode.CONTRACT_CREDENTIALS_UNSUPPORTED);
        assertThat(ContractCheck.check(greedy, poor)).isEqualTo(first);
        assertThatThrownBy(() -> first.add(first.get(0))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void agentContextValidatesAndCopies() {
        assertThatThrownBy(() ->
                        AgentContext.of("Codex", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AgentContext(
                        "codex", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY, Set.of("a b")))
                .isInstanceOf(IllegalArgumentException.class);
        java.util.HashSet<InputType> inputs = new java.util.HashSet<>(Set.of(InputType.TEXT));
        AgentContext c = AgentContext.of("codex", SemVer.parse("1.0.0"), inputs, Set.of(), PermissionMode.READ_ONLY);
        inputs.add(InputType.IMAGE);
        assertThat(c.inputTypes()).containsExactly(InputType.TEXT);
    }
}
