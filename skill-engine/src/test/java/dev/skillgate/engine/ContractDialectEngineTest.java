package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureChecker;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.signature.PublisherKeys;
import dev.skillgate.signature.SignatureStatement;
import dev.skillgate.signature.SignatureVerification;
import dev.skillgate.signature.SignatureVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trust-contract dialects through the facade: a {@code ServiceLoader} provider is used only when
 * named (decision 0401), inspection and activation read a dialect record through it, the contract
 * check refuses a dialect contract exactly as a built-in one, the approval request names the
 * dialect, a signed dialect contract verifies with a real {@code ssh-keygen} signature over the same
 * contract digest and revision (and stops verifying when one byte changes), and bad dialect
 * configuration fails {@code build()} before anything is created.
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
    void executeReadsTheDialectRecordAndRefusesAGreedyOneBeforeAnythingStarts() throws IOException {
        Path runner = Bundles.skill(
                skills,
                "dialect-runner",
                "run.mjs",
                "console.log('{}');\n".getBytes(StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                5_000,
                4_096);
        Support.write(
                runner.resolve(SkillContract.FILE_NAME),
                "{\"recordType\":\"" + ProbeContractDialect.TYPE + "\",\"access\":\"workspace-write\"}\n");
        Path workspace = Files.createDirectories(tmp.resolve("workspace"));
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate withDialect = gate(SkillGate.builder()
                .agentContext(READ_ONLY)
                .approvalChannel(channel)
                .contractDialect(new ProbeContractDialect()));
        ExecutionEnvelope greedy =
                withDialect.execute(ExecutionRequest.of(RunId.random(), AGENT_ID, "dialect-runner", "{}", workspace));
        assertThat(greedy.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(greedy.errorCodes()).containsExactly(ErrorCode.CONTRACT_PERMISSION_ESCALATION);
        assertThat(greedy.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(channel.requests()).as("nobody is asked").isEmpty();

        SkillGate without = gate(SkillGate.builder().agentContext(READ_ONLY).approvalChannel(channel));
        ExecutionEnvelope unknown =
                without.execute(ExecutionRequest.of(RunId.random(), AGENT_ID, "dialect-runner", "{}", workspace));
        assertThat(unknown.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(unknown.errorCodes()).containsExactly(ErrorCode.CONTRACT_VERSION);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void aSignedDialectContractVerifiesWithARealSshKeygenSignatureOverTheSameBytes() throws Exception {
        Path sshKeygen = Path.of("/usr/bin/ssh-keygen");
        Assumptions.assumeTrue(Files.isExecutable(sshKeygen), "needs the real OpenSSH ssh-keygen");
        Support.write(
                skill.resolve(SkillContract.FILE_NAME),
                "{\"recordType\":\"" + ProbeContractDialect.TYPE + "\",\"access\":\"read-only\",\"publisher\":\""
                        + ProbeContractDialect.PUBLISHER + "\"}\n");
        Path keys = Files.createDirectories(tmp.resolve("keys"));
        Path key = keys.resolve("publisher");
        ssh(sshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", "publisher@test", "-f", key.toString());
        PublisherKeys allowed = PublisherKeys.parse((ProbeContractDialect.PUBLISHER + " "
                        + Files.readString(Path.of(key + ".pub")).strip() + "\n")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(allowed.hasErrors()).isFalse();
        SignatureChecker checker = (contractBytes, revision, signatureFile, publisher) -> {
            SignatureStatement expected = SignatureStatement.of(contractBytes, revision);
            SignatureVerification result = publisher.isPresent()
                    ? SignatureVerifier.verifyForPublisher(publisher.get(), expected, signatureFile, allowed)
                    : SignatureVerifier.verify(expected, signatureFile, allowed);
            if (result instanceof SignatureVerification.Verified v) {
                return new SignatureVerdict.Verified(
                        v.keyFingerprint(), v.principals(), v.statement().toText());
            }
            return new SignatureVerdict.Rejected(((SignatureVerification.Rejected) result).diagnostic());
        };

        // The publisher signs {contract sha256, revision} of the capture, as `skillgate sign` would.
        byte[] contractBytes = Files.readAllBytes(skill.resolve(SkillContract.FILE_NAME));
        Revision revision;
        try (SkillArtifact artifact = SkillArtifact.capture(skill).artifact().orElseThrow()) {
            revision = artifact.revision();
        }
        SignatureStatement statement = SignatureStatement.of(contractBytes, revision);
        Path message = Files.write(keys.resolve("statement"), statement.toBytes());
        ssh(sshKeygen, "-Y", "sign", "-n", SignatureVerifier.NAMESPACE, "-f", key.toString(), message.toString());
        byte[] armored = Files.readAllBytes(Path.of(message + ".sig"));
        Files.write(skill.resolve("skill.contract.sig"), statement.signatureFile(armored));

        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        SkillGate g = gate(SkillGate.builder()
                .agentContext(READ_ONLY)
                .approvalChannel(channel)
                .signatureChecker(checker)
                .contractDialect(new ProbeContractDialect()));
        Inspection inspection = g.inspect(SKILL);
        ContractVerdict.Accepted accepted =
                (ContractVerdict.Accepted) inspection.contract().orElseThrow();
        assertThat(accepted.recordType()).isEqualTo(ProbeContractDialect.TYPE);
        assertThat(accepted.contract().origin().type()).isEqualTo(OriginType.SIGNED);
        assertThat(accepted.sha256()).isEqualTo(Sha256Digest.hash(contractBytes));
        assertThat(inspection.revision()).contains(revision);
        assertThat(inspection.signature()).isInstanceOf(SignatureVerdict.Verified.class);
        // A verified signature stands in for first-use approval: nobody is asked.
        assertThat(g.activate(AGENT_ID, SKILL, READ_ONLY)).isInstanceOf(Activation.Activated.class);
        assertThat(channel.activationRequests()).isEmpty();

        // One byte more in the dialect record: another contract digest and revision, so the same
        // signature no longer verifies — exactly as for a built-in record.
        Files.write(
                skill.resolve(SkillContract.FILE_NAME),
                (new String(contractBytes, StandardCharsets.UTF_8) + " ").getBytes(StandardCharsets.UTF_8));
        Inspection changed = g.inspect(SKILL);
        assertThat(changed.contract()).containsInstanceOf(ContractVerdict.Accepted.class);
        assertThat(changed.signature()).isInstanceOf(SignatureVerdict.Rejected.class);
        assertThat(g.activate(AGENT_ID, SKILL, READ_ONLY))
                .isInstanceOfSatisfying(
                        Activation.Refused.class,
                        r -> assertThat(r.reasons())
                                .extracting(d -> d.code().name())
                                .allMatch(code -> code.startsWith("SIGNATURE_")));
        assertThat(channel.activationRequests()).isEmpty();
    }

    private static void ssh(Path binary, String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add(binary.toString());
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("ssh-keygen %s: %s", argv, output).isZero();
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
