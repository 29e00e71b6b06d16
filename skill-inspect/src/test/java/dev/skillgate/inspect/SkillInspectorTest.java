package dev.skillgate.inspect;

import static dev.skillgate.inspect.Captures.executable;
import static dev.skillgate.inspect.Captures.skillMd;
import static dev.skillgate.inspect.Captures.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.shared.ContractParserTest;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import dev.skillgate.protocol.ManifestVerdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SkillInspector} on real directories: every verdict reported separately. */
class SkillInspectorTest {
    @TempDir
    Path root;

    private static String contract(String id, String origin, String extra) {
        Map<String, Object> c = ContractParserTest.valid();
        @SuppressWarnings("unchecked")
        Map<String, Object> identity = (Map<String, Object>) c.get("identity");
        identity.put("id", id);
        c.put(
                "origin",
                origin.equals("signed")
                        ? Map.of("type", "signed", "publisher", "alice@example.com")
                        : Map.of("type", origin));
        if (extra.equals("credentials")) {
            c.put("credentials", List.of("TOKEN"));
        }
        return new String(ContractParserTest.bytes(c), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void promptOnlySkillWithoutContractPasses() {
        Path dir = root.resolve("notes");
        write(dir.resolve("SKILL.md"), skillMd("notes", "# Notes\n"));
        Inspection i = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(i.passes()).isTrue();
        assertThat(i.format().portable()).isTrue();
        assertThat(i.manifest()).containsInstanceOf(ManifestVerdict.Absent.class);
        assertThat(i.executionAvailable()).isFalse();
        assertThat(i.executionReasons()).extracting(Diagnostic::code).containsExactly(ErrorCode.MANIFEST_ABSENT);
        assertThat(i.inputSchema().status()).isEqualTo(SchemaVerdict.Status.NOT_CHECKED);
        assertThat(i.contract()).containsInstanceOf(ContractVerdict.Absent.class);
        assertThat(i.signature()).isInstanceOf(SignatureVerdict.NotChecked.class);
        assertThat(i.revision()).contains(Captures.captured(dir).revision());
    }

    @Test
    void executableSkillWithContractCheckedAgainstAContext() {
        Path dir = executable(root, "read-only-review");
        write(dir.resolve("skill.contract.json"), contract("global/read-only-review", "local-unsigned", ""));
        Inspection plain = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(plain.passes()).as("%s", plain).isTrue();
        assertThat(plain.executionAvailable()).isTrue();
        assertThat(plain.inputSchema().status()).isEqualTo(SchemaVerdict.Status.ACCEPTED);
        assertThat(plain.contract()).containsInstanceOf(ContractVerdict.Accepted.class);
        assertThat(plain.files())
                .extracting(f -> f.path().value())
                .containsExactly("SKILL.md", "execution.json", "run.mjs", "skill.contract.json");
        assertThat(plain.signature())
                .isEqualTo(new SignatureVerdict.NotChecked(
                        "an unsigned local skill: it needs first-use approval instead"));

        AgentContext poor = AgentContext.of(
                "codex", SemVer.parse("0.150.0"), Set.of(InputType.TEXT), Set.of(), PermissionMode.READ_ONLY);
        Inspection checked = SkillInspector.inspect(
                dir, InspectOptions.builder().agentContext(poor).build());
        assertThat(checked.contractCheck())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.CONTRACT_TOOL_MISSING);
        assertThat(checked.passes()).isFalse();
        AgentContext fits = AgentContext.of(
                "codex",
                SemVer.parse("0.150.0"),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM),
                PermissionMode.READ_ONLY);
        assertThat(SkillInspector.inspect(
                                dir, InspectOptions.builder().agentContext(fits).build())
                        .passes())
                .isTrue();
        assertThat(SkillInspector.inspect(
                                dir, InspectOptions.builder().namespace("acme").build())
                        .contract())
                .hasValueSatisfying(c -> assertThat(c.problems())
                        .extracting(Diagnostic::code)
                        .containsExactly(ErrorCode.CONTRACT_IDENTITY_MISMATCH));
    }

    @Test
    void declaredCredentialsNeedABrokerEvenWithoutAContext() {
        Path dir = root.resolve("creds");
        write(dir.resolve("SKILL.md"), skillMd("creds", ""));
        write(dir.resolve("skill.contract.json"), contract("global/creds", "local-unsigned", "credentials"));
        Inspection i = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(i.contractCheck())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.CONTRACT_CREDENTIALS_UNSUPPORTED);
        assertThat(i.passes()).isFalse();
        assertThat(SkillInspector.inspect(
                                dir,
                                InspectOptions.builder()
                                        .credentialBroker(n -> true)
                                        .build())
                        .contractCheck())
                .isEmpty();
    }

    @Test
    void rejectedSchemaMakesExecutionUnavailableButKeepsPromptUse() {
        Path dir = executable(root, "bad-schema");
        write(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"run.mjs\",\"files\":[\"run.mjs\"],"
                        + "\"inputSchema\":{\"$ref\":\"#/x\"},\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}");
        Inspection i = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(i.format().loadable()).isTrue();
        assertThat(i.executionAvailable()).isFalse();
        assertThat(i.inputSchema().status()).isEqualTo(SchemaVerdict.Status.REJECTED);
        assertThat(i.inputSchema().problems())
                .allSatisfy(d -> assertThat(d.location()).startsWith("/inputSchema"));
        assertThat(i.outputSchema().status()).isEqualTo(SchemaVerdict.Status.ACCEPTED);
        assertThat(i.passes()).isFalse();
        write(dir.resolve("execution.json"), "{\"schemaVersion\":2}");
        Inspection v2 = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(v2.inputSchema().status()).isEqualTo(SchemaVerdict.Status.NOT_CHECKED);
        assertThat(v2.executionReasons()).extracting(Diagnostic::code).containsExactly(ErrorCode.MANIFEST_VERSION);
    }

    @Test
    void captureFailureStillReportsTheFormatVerdict() throws Exception {
        Path empty = Files.createDirectories(root.resolve("empty"));
        Inspection i = SkillInspector.inspect(empty, InspectOptions.defaults());
        assertThat(i.captureProblem())
                .hasValueSatisfying(d -> assertThat(d.code()).isEqualTo(ErrorCode.LAYOUT_SKILLMD));
        assertThat(i.format().has(ErrorCode.LAYOUT_SKILLMD)).isTrue();
        assertThat(i.revision()).isEmpty();
        assertThat(i.passes()).isFalse();
        assertThat(i.signature()).isInstanceOf(SignatureVerdict.NotChecked.class);
    }

    @Test
    void signatureVerdictsFollowTheOriginAndTheConfiguredChecker() {
        Path dir = root.resolve("signed-skill");
        write(dir.resolve("SKILL.md"), skillMd("signed-skill", ""));
        write(dir.resolve("skill.contract.json"), contract("global/signed-skill", "signed", ""));
        assertThat(SkillInspector.inspect(dir, InspectOptions.defaults()).signature())
                .isEqualTo(new SignatureVerdict.NotChecked("no publisher keys are configured"));
        AtomicReference<Object[]> seen = new AtomicReference<>();
        SignatureChecker accepting = (contract, revision, file, publisher) -> {
            seen.set(new Object[] {contract, revision, file, publisher});
            return new SignatureVerdict.Verified("SHA256:x", List.of("alice@example.com"), "statement");
        };
        InspectOptions withKeys =
                InspectOptions.builder().signatureChecker(accepting).build();
        Inspection missing = SkillInspector.inspect(dir, withKeys);
        assertThat(missing.signature())
                .isInstanceOfSatisfying(
                        SignatureVerdict.Rejected.class,
                        r -> assertThat(r.code()).isEqualTo(ErrorCode.SIGNATURE_MISSING));
        assertThat(missing.passes()).isFalse();
        assertThat(seen.get()).isNull();

        write(dir.resolve("skill.contract.sig"), "signature bytes");
        Inspection verified = SkillInspector.inspect(dir, withKeys);
        assertThat(verified.signature()).isInstanceOf(SignatureVerdict.Verified.class);
        assertThat(verified.passes()).isTrue();
        assertThat((byte[]) seen.get()[0])
                .isEqualTo(Captures.captured(dir).contractBytes().orElseThrow());
        assertThat((Revision) seen.get()[1]).isEqualTo(verified.revision().orElseThrow());
        assertThat((byte[]) seen.get()[2]).isEqualTo("signature bytes".getBytes());
        assertThat(seen.get()[3]).isEqualTo(Optional.of("alice@example.com"));
        assertThat(verified.files()).extracting(f -> f.path().value()).doesNotContain("skill.contract.sig");

        write(dir.resolve("skill.contract.sig"), new byte[SkillInspector.MAX_SIGNATURE_FILE_BYTES + 1]);
        assertThat(SkillInspector.inspect(dir, withKeys).signature())
                .isInstanceOfSatisfying(
                        SignatureVerdict.Rejected.class,
                        r -> assertThat(r.code()).isEqualTo(ErrorCode.READ_TOO_LARGE));
    }

    @Test
    void lowercaseSkillFileIsReportedAsAFallback() {
        Path dir = root.resolve("lower");
        write(dir.resolve("skill.md"), skillMd("lower", ""));
        Inspection i = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(i.format().has(ErrorCode.LAYOUT_SKILLMD_CASE)).isTrue();
        assertThat(i.format().loadable()).isTrue();
    }
}
