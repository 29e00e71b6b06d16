package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trust-contract dialects through the facade: a {@code ServiceLoader} provider is used only when
 * named (decision 0401), inspection and activation read a dialect record through it, the contract
 * check refuses a dialect contract exactly as a built-in one, the approval request names the
 * dialect, and bad dialect configuration fails {@code build()} before anything is created.
 */
class ContractDialectEngineTest {
    private static final String SKILL = "dialect-notes";
    private static final AgentId AGENT_ID = AgentId.of("example-agent-1.5");
    private static final AgentContext READ_ONLY = AgentContext.of(
            "example-agent", SemVer.parse("1.5.0"), Set.of(InputType.TEXT), Set.of(), PermissionMode.READ_ONLY);

    @TempDir
    Path tmp;

    private Path skills;
    private Path skill;
    private SkillGateAdmin admin;
    private SkillGate gate;

    @BeforeEach
    void setUp() throws IOException {
        skills = Files.createDirectories(tmp.resolve("skills"));
        skill = Files.createDirectories(skills.resolve(SKILL));
        Support.write(
                skill.resolve("SKILL.md"),
                "---\nname: " + SKILL + "\ndescription: Notes whose contract is a dialect record.\n---\n# Notes\n");
        contract("read-only");
        admin = SkillGateAdmin.open(tmp.resolve("data"));
    }

    @AfterEach
    void tearDown() {
        if (gate != null) {
            gate.close();
        }
        admin.close();
    }

    private void contract(String access) throws IOException {
        Support.write(
                skill.resolve(SkillContract.FILE_NAME),
                "{\"recordType\":\"" + ProbeContractDialect.TYPE + "\",\"access\":\"" + access + "\"}\n");
    }

    private SkillGate gate(SkillGate.Builder b) {
        if (gate != null) {
            gate.close();
        }
        gate = b.admin(admin).skillRoot(skills).build();
        return gate;
    }

    @Test
    void anInstalledProviderIsUsedOnlyWhenNamed() throws IOException {
        int before = ProbeContractDialect.CALLS.get();
        SkillGate plain = gate(SkillGate.builder().agentContext(READ_ONLY));
        Inspection unnamed = plain.inspect(SKILL);
        assertThat(unnamed.contract().orElseThrow().problems())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.CONTRACT_VERSION);
        assertThat(plain.activate(AGENT_ID, SKILL, READ_ONLY))
                .isInstanceOfSatisfying(
                        Activation.Refused.class,
                        r -> assertThat(r.reasons())
                                .extracting(Diagnostic::code)
                                .containsExactly(ErrorCode.CONTRACT_VERSION));
        assertThat(ProbeContractDialect.CALLS.get()).isEqualTo(before);

        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate named = gate(SkillGate.builder()
                .agentContext(READ_ONLY)
                .approvalChannel(channel)
                .contractDialectProvider(ProbeContractDialect.TYPE));
        Inspection inspection = named.inspect(SKILL);
        assertThat(inspection.passes()).as("%s", inspection).isTrue();
        ContractVerdict.Accepted accepted =
                (ContractVerdict.Accepted) inspection.contract().orElseThrow();
        assertThat(accepted.recordType()).isEqualTo(ProbeContractDialect.TYPE);
        assertThat(accepted.contract().identity().id()).isEqualTo("global/" + SKILL);
        Sha256Digest fileDigest = Sha256Digest.hash(Files.readAllBytes(skill.resolve(SkillContract.FILE_NAME)));
        assertThat(accepted.sha256()).isEqualTo(fileDigest);
        assertThat(inspection.revision()).isEqualTo(unnamed.revision());

        Activation activation = named.activate(AGENT_ID, SKILL, READ_ONLY);
        assertThat(activation)
                .isInstanceOfSatisfying(
                        Activation.Activated.class,
                        a -> assertThat(a.contract()).contains(fileDigest));
        assertThat(channel.activationRequests()).singleElement().satisfies(r -> {
            assertThat(r.contractRecordType()).contains(ProbeContractDialect.TYPE);
            assertThat(r.contractFromDialect()).isTrue();
            assertThat(r.contractDigest()).contains(fileDigest);
        });
        assertThat(ProbeContractDialect.CALLS.get()).isGreaterThan(before);
    }

    @Test
    void aDialectContractAskingForMoreThanGrantedIsRefusedBeforeAnyQuestion() throws IOException {
        contract("workspace-write");
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate g = gate(SkillGate.builder().approvalChannel(channel).contractDialect(new ProbeContractDialect()));
        assertThat(g.activate(AGENT_ID, SKILL, READ_ONLY))
                .isInstanceOfSatisfying(
                        Activation.Refused.class,
                        r -> assertThat(r.reasons())
                                .extracting(Diagnostic::code)
                                .containsExactly(ErrorCode.CONTRACT_PERMISSION_ESCALATION));
        assertThat(channel.activationRequests()).isEmpty();
    }

    @Test
    void badDialectConfigurationFailsBuildBeforeAnythingIsCreated() {
        Path data = tmp.resolve("never-created");
        assertThatThrownBy(() -> SkillGate.builder()
                        .dataDirectory(data)
                        .skillRoot(skills)
                        .contractDialectProvider("twin-permissions/1")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("load order never decides");
        assertThatThrownBy(() -> SkillGate.builder()
                        .dataDirectory(data)
                        .skillRoot(skills)
                        .contractDialectProvider("absent-permissions/1")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no ContractDialect provider");
        assertThatThrownBy(() -> SkillGate.builder()
                        .dataDirectory(data)
                        .skillRoot(skills)
                        .contractDialect(new ProbeContractDialect())
                        .contractDialectProvider(ProbeContractDialect.TYPE)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two contract dialects");
        assertThatThrownBy(() -> SkillGate.builder()
                        .dataDirectory(data)
                        .skillRoot(skills)
                        .contractDialect(new ProbeContractDialect(SkillContract.RECORD_TYPE))
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SkillGate.builder().contractDialectProvider(SkillContract.RECORD_TYPE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(data).doesNotExist();
    }
}
