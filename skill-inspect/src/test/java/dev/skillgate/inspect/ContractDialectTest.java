package dev.skillgate.inspect;

import static dev.skillgate.inspect.Captures.executable;
import static dev.skillgate.inspect.Captures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.inspect.shared.ContractParserTest;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trust-contract dialects ({@link ContractDialect}) on real bundles on disk: a dialect record is
 * mapped to the same {@link SkillContract}, reported with its record type, checked exactly like a
 * built-in one, and every way a dialect can misbehave rejects the contract with a specific code.
 */
class ContractDialectTest {
    private static final String NAME = "read-only-review";

    @TempDir
    Path root;

    private static final AgentContext POOR = AgentContext.of(
            "codex", SemVer.parse("0.150.0"), Set.of(InputType.TEXT), Set.of(), PermissionMode.READ_ONLY);

    private Path skill(String rootName, byte[] contract) {
        Path dir = executable(root.resolve(rootName), NAME);
        write(dir.resolve(SkillContract.FILE_NAME), contract);
        return dir;
    }

    private static InspectOptions withDialect(ContractDialect dialect) {
        return InspectOptions.builder().contractDialect(dialect).build();
    }

    /** A dialect for {@link AcmeDialect#TYPE} that does whatever {@code behaviour} does. */
    private static ContractDialect dialect(Function<byte[], ContractDialect.Result> behaviour) {
        return new ContractDialect() {
            @Override
            public String recordType() {
                return AcmeDialect.TYPE;
            }

            @Override
            public Result parse(byte[] bytes, String directoryName, Optional<String> namespace) {
                return behaviour.apply(bytes);
            }
        };
    }

    private static List<ErrorCode> codes(ContractVerdict verdict) {
        return verdict.problems().stream().map(Diagnostic::code).toList();
    }

    @Test
    void aDialectRecordIsMappedAndReportedWithItsRecordType() throws IOException {
        byte[] record = AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME));
        Path dir = skill("a", record);
        Inspection i = SkillInspector.inspect(dir, withDialect(new AcmeDialect()));
        assertThat(i.passes()).as("%s", i).isTrue();
        ContractVerdict.Accepted accepted =
                (ContractVerdict.Accepted) i.contract().orElseThrow();
        assertThat(accepted.recordType()).isEqualTo(AcmeDialect.TYPE);
        assertThat(accepted.fromDialect()).isTrue();
        assertThat(accepted.sha256())
                .isEqualTo(Sha256Digest.hash(Files.readAllBytes(dir.resolve("skill.contract.json"))));
        SkillContract c = accepted.contract();
        assertThat(c.identity().id()).isEqualTo("global/" + NAME);
        assertThat(c.identity().version()).isEqualTo(SemVer.parse("2.1.0"));
        assertThat(c.origin().type()).isEqualTo(OriginType.LOCAL_UNSIGNED);
        assertThat(c.agents())
                .containsExactly(new AgentRequirement("codex", SemVer.parse("0.130.0"), SemVer.parse("0.200.0")));
        assertThat(c.inputTypes()).containsExactly(InputType.TEXT);
        assertThat(c.tools()).containsExactly(ToolClass.FILESYSTEM);
        assertThat(c.permissionMode()).isEqualTo(PermissionMode.READ_ONLY);
        assertThat(c.sideEffectClass()).isEqualTo(SideEffectClass.NONE);

        // The same contract from the built-in record is equal, and reported as the built-in type.
        Path builtIn = skill(
                "b", ContractParserTest.bytes(AcmeDialect.builtInEquivalent(AcmeDialect.valid("global/" + NAME))));
        ContractVerdict.Accepted plain =
                (ContractVerdict.Accepted) SkillInspector.inspect(builtIn, withDialect(new AcmeDialect()))
                        .contract()
                        .orElseThrow();
        assertThat(plain.contract()).isEqualTo(c);
        assertThat(plain.recordType()).isEqualTo(SkillContract.RECORD_TYPE);
        assertThat(plain.fromDialect()).isFalse();
    }

    @Test
    void theRevisionAndContractDigestAreOfTheSameBytesWithOrWithoutADialect() throws IOException {
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        Inspection with = SkillInspector.inspect(dir, withDialect(new AcmeDialect()));
        Inspection without = SkillInspector.inspect(dir, InspectOptions.defaults());
        assertThat(with.revision()).isPresent().isEqualTo(without.revision());
        assertThat(with.files()).isEqualTo(without.files());
        Sha256Digest fileDigest = Sha256Digest.hash(Files.readAllBytes(dir.resolve(SkillContract.FILE_NAME)));
        assertThat(with.files())
                .filteredOn(f -> f.path().value().equals(SkillContract.FILE_NAME))
                .extracting(CapturedFile::sha256)
                .containsExactly(fileDigest);
        assertThat(((ContractVerdict.Accepted) with.contract().orElseThrow()).sha256())
                .isEqualTo(fileDigest);
        // Without the dialect the very same file is an unknown record type, as before.
        assertThat(codes(without.contract().orElseThrow())).containsExactly(ErrorCode.CONTRACT_VERSION);
        assertThat(without.passes()).isFalse();
    }

    @Test
    void aRecordTypeWithoutADialectKeepsContractVersion() {
        Map<String, Object> other = AcmeDialect.valid("global/" + NAME);
        other.put("recordType", "other-permissions/1");
        Path dir = skill("a", AcmeDialect.bytes(other));
        ContractVerdict verdict = SkillInspector.inspect(dir, withDialect(new AcmeDialect()))
                .contract()
                .orElseThrow();
        assertThat(verdict.problems())
                .extracting(Diagnostic::code, Diagnostic::location)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ErrorCode.CONTRACT_VERSION, "/recordType"));
        // Dispatch is on the exact string: no case folding, no prefix match.
        other.put("recordType", "ACME-permissions/1");
        Path upper = skill("b", AcmeDialect.bytes(other));
        assertThat(codes(SkillInspector.inspect(upper, withDialect(new AcmeDialect()))
                        .contract()
                        .orElseThrow()))
                .containsExactly(ErrorCode.CONTRACT_VERSION);
    }

    @Test
    void aDialectContractAskingForMoreThanTheContextGrantsIsRefusedExactlyLikeABuiltInOne() {
        Map<String, Object> greedy = AcmeDialect.valid("global/" + NAME);
        greedy.put("access", "workspace-write");
        greedy.put("writes", "external-write");
        greedy.put("uses", List.of("filesystem", "network"));
        greedy.put("hosts", List.of("https://api.example.com"));
        greedy.put("needs", List.of("text", "image"));
        Path dialectDir = skill("a", AcmeDialect.bytes(greedy));
        Path builtInDir = skill("b", ContractParserTest.bytes(AcmeDialect.builtInEquivalent(greedy)));
        InspectOptions options = InspectOptions.builder()
                .contractDialect(new AcmeDialect())
                .agentContext(POOR)
                .build();
        Inspection viaDialect = SkillInspector.inspect(dialectDir, options);
        Inspection viaBuiltIn = SkillInspector.inspect(builtInDir, options);
        assertThat(viaDialect.contract()).containsInstanceOf(ContractVerdict.Accepted.class);
        assertThat(viaDialect.contractCheck())
                .extracting(Diagnostic::code)
                .contains(
                        ErrorCode.CONTRACT_INPUT_TYPE_MISSING,
                        ErrorCode.CONTRACT_TOOL_MISSING,
                        ErrorCode.CONTRACT_PERMISSION_ESCALATION);
        assertThat(viaDialect.contractCheck()).isEqualTo(viaBuiltIn.contractCheck());
        assertThat(viaDialect.passes()).isFalse();
    }

    @Test
    void declaredCredentialsNeedABrokerAsForTheBuiltInRecord() {
        Map<String, Object> secretive = AcmeDialect.valid("global/" + NAME);
        secretive.put("secrets", List.of("TOKEN"));
        Path dir = skill("a", AcmeDialect.bytes(secretive));
        Inspection i = SkillInspector.inspect(dir, withDialect(new AcmeDialect()));
        assertThat(i.contractCheck())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.CONTRACT_CREDENTIALS_UNSUPPORTED);
    }

    @Test
    void theOriginRuleHoldsForDialectContracts() {
        Map<String, Object> signed = AcmeDialect.valid("global/" + NAME);
        signed.put("publisher", "alice@example.com");
        Path dir = skill("a", AcmeDialect.bytes(signed));
        SignatureChecker accepting = (bytes, revision, sig, publisher) ->
                new SignatureVerdict.Verified("SHA256:x", List.of("alice@example.com"), "statement");
        Inspection noKeys = SkillInspector.inspect(dir, withDialect(new AcmeDialect()));
        assertThat(noKeys.signature()).isEqualTo(new SignatureVerdict.NotChecked("no publisher keys are configured"));
        Inspection keysNoSig = SkillInspector.inspect(
                dir,
                InspectOptions.builder()
                        .contractDialect(new AcmeDialect())
                        .signatureChecker(accepting)
                        .build());
        assertThat(keysNoSig.signature()).isInstanceOf(SignatureVerdict.Rejected.class);
        assertThat(((SignatureVerdict.Rejected) keysNoSig.signature()).code()).isEqualTo(ErrorCode.SIGNATURE_MISSING);
        assertThat(keysNoSig.passes()).isFalse();

        // With a signature file the checker sees exactly the captured contract bytes and publisher.
        write(dir.resolve(SkillInspector.SIGNATURE_FILE_NAME), "sig");
        List<Object> seen = new ArrayList<>();
        SignatureChecker recording = (bytes, revision, sig, publisher) -> {
            seen.add(Sha256Digest.hash(bytes));
            seen.add(publisher);
            return new SignatureVerdict.Verified("SHA256:x", List.of("alice@example.com"), "statement");
        };
        Inspection verified = SkillInspector.inspect(
                dir,
                InspectOptions.builder()
                        .contractDialect(new AcmeDialect())
                        .signatureChecker(recording)
                        .build());
        ContractVerdict.Accepted accepted =
                (ContractVerdict.Accepted) verified.contract().orElseThrow();
        assertThat(verified.signature()).isInstanceOf(SignatureVerdict.Verified.class);
        assertThat(seen).containsExactly(accepted.sha256(), Optional.of("alice@example.com"));

        Path unsigned = skill("b", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        assertThat(SkillInspector.inspect(unsigned, withDialect(new AcmeDialect()))
                        .signature())
                .isEqualTo(new SignatureVerdict.NotChecked(
                        "an unsigned local skill: it needs first-use approval instead"));
    }

    @Test
    void aThrowingDialectRejectsTheContract() {
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        List<Function<byte[], ContractDialect.Result>> throwing = List.of(
                b -> {
                    throw new IllegalStateException("secret value abc123 must not be shown");
                },
                b -> sneaky(new IOException("checked")),
                b -> {
                    throw new AssertionError("bug");
                },
                b -> {
                    throw new StackOverflowError();
                },
                b -> {
                    throw new NoClassDefFoundError("missing");
                });
        for (Function<byte[], ContractDialect.Result> behaviour : throwing) {
            Inspection i = SkillInspector.inspect(dir, withDialect(dialect(behaviour)));
            ContractVerdict verdict = i.contract().orElseThrow();
            assertThat(verdict).isInstanceOf(ContractVerdict.Rejected.class);
            assertThat(codes(verdict)).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
            assertThat(verdict.problems().get(0).message())
                    .contains(AcmeDialect.TYPE)
                    .doesNotContain("abc123");
            assertThat(i.passes()).isFalse();
            assertThat(i.signature()).isInstanceOf(SignatureVerdict.NotChecked.class);
        }
    }

    @Test
    void aDialectThatIsInterruptedKeepsTheInterruptFlag() {
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        try {
            ContractVerdict verdict = SkillInspector.inspect(
                            dir, withDialect(dialect(b -> sneaky(new InterruptedException()))))
                    .contract()
                    .orElseThrow();
            assertThat(codes(verdict)).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aNullResultRejectsTheContract() {
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        ContractVerdict verdict = SkillInspector.inspect(dir, withDialect(dialect(b -> null)))
                .contract()
                .orElseThrow();
        assertThat(codes(verdict)).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
        assertThat(verdict.problems().get(0).message()).contains("returned null");
    }

    @Test
    void aDialectsDiagnosticsRejectTheContract() {
        Map<String, Object> incomplete = AcmeDialect.valid("global/" + NAME);
        incomplete.remove("access");
        incomplete.put("writes", "bogus");
        Path dir = skill("a", AcmeDialect.bytes(incomplete));
        Inspection i = SkillInspector.inspect(dir, withDialect(new AcmeDialect()));
        assertThat(i.contract().orElseThrow().problems())
                .extracting(Diagnostic::code, Diagnostic::location)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ErrorCode.CONTRACT_MISSING_FIELD, "/access"));
        assertThat(i.passes()).isFalse();

        Map<String, Object> unknownValue = AcmeDialect.valid("global/" + NAME);
        unknownValue.put("writes", "bogus");
        Path other = skill("b", AcmeDialect.bytes(unknownValue));
        assertThat(codes(SkillInspector.inspect(other, withDialect(new AcmeDialect()))
                        .contract()
                        .orElseThrow()))
                .containsExactly(ErrorCode.CONTRACT_TYPE);
    }

    @Test
    void aRefusalMustCarryContractErrors() {
        Diagnostic warning = Diagnostic.warning(ErrorCode.CONTRACT_TYPE, "", "only a warning");
        Diagnostic foreign = Diagnostic.error(ErrorCode.MANIFEST_SYNTAX, "", "not a contract code");
        assertThatThrownBy(() -> ContractDialect.Result.refused(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ContractDialect.Result.refused(List.of(warning)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ContractDialect.Result.refused(List.of(foreign)))
                .isInstanceOf(IllegalArgumentException.class);
        List<Diagnostic> many = new ArrayList<>();
        for (int k = 0; k <= ContractDialect.Result.MAX_DIAGNOSTICS; k++) {
            many.add(Diagnostic.error(ErrorCode.CONTRACT_TYPE, "", "x"));
        }
        assertThatThrownBy(() -> ContractDialect.Result.refused(many)).isInstanceOf(IllegalArgumentException.class);
        // A dialect that tries anyway throws inside parse, which is a dialect failure.
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        ContractVerdict verdict = SkillInspector.inspect(
                        dir, withDialect(dialect(b -> ContractDialect.Result.refused(List.of(foreign)))))
                .contract()
                .orElseThrow();
        assertThat(codes(verdict)).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
    }

    @Test
    void aMappedContractMustKeepTheBuiltInRules() {
        Map<String, Object> elsewhere = AcmeDialect.valid("global/other-skill");
        Path dir = skill("a", AcmeDialect.bytes(elsewhere));
        assertThat(codes(SkillInspector.inspect(dir, withDialect(new AcmeDialect()))
                        .contract()
                        .orElseThrow()))
                .containsExactly(ErrorCode.CONTRACT_IDENTITY_MISMATCH);
        Path named = skill("b", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        InspectOptions team = InspectOptions.builder()
                .contractDialect(new AcmeDialect())
                .namespace("team")
                .build();
        assertThat(codes(SkillInspector.inspect(named, team).contract().orElseThrow()))
                .containsExactly(ErrorCode.CONTRACT_IDENTITY_MISMATCH);

        SkillContract good = ((ContractVerdict.Accepted) SkillInspector.inspect(named, withDialect(new AcmeDialect()))
                        .contract()
                        .orElseThrow())
                .contract();
        List<SkillContract> broken = List.of(
                copy(good, List.of(), good.credentials()),
                copy(good, nCopies(good.agents().get(0), 33), good.credentials()),
                copy(good, good.agents(), List.of("TOKEN", "TOKEN")),
                copy(good, good.agents(), List.of("bad name")),
                copy(good, good.agents(), numbered(33)));
        for (SkillContract contract : broken) {
            ContractVerdict verdict = SkillInspector.inspect(
                            named, withDialect(dialect(b -> ContractDialect.Result.mapped(contract))))
                    .contract()
                    .orElseThrow();
            assertThat(codes(verdict)).as("%s", contract).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
        }
        // A dialect that builds a contract breaking the model's own invariants throws while building.
        ContractVerdict invariant = SkillInspector.inspect(
                        named,
                        withDialect(dialect(b -> ContractDialect.Result.mapped(new SkillContract(
                                good.identity(),
                                good.origin(),
                                good.agents(),
                                good.inputTypes(),
                                good.tools(),
                                good.credentials(),
                                PermissionMode.READ_ONLY,
                                List.of(),
                                SideEffectClass.EXTERNAL_WRITE)))))
                .contract()
                .orElseThrow();
        assertThat(codes(invariant)).containsExactly(ErrorCode.CONTRACT_DIALECT_FAILED);
    }

    @Test
    void theDialectGetsAFreshCopyOfTheExactBytes() throws IOException {
        Path dir = skill("a", AcmeDialect.bytes(AcmeDialect.valid("global/" + NAME)));
        byte[] onDisk = Files.readAllBytes(dir.resolve(SkillContract.FILE_NAME));
        AtomicInteger calls = new AtomicInteger();
        List<byte[]> seen = new ArrayList<>();
        AcmeDialect real = new AcmeDialect();
        ContractDialect vandal = dialect(b -> {
            seen.add(b.clone());
            calls.incrementAndGet();
            ContractDialect.Result r = real.parse(b, NAME, Optional.empty());
            java.util.Arrays.fill(b, (byte) 'x');
            return r;
        });
        Inspection first = SkillInspector.inspect(dir, withDialect(vandal));
        Inspection second = SkillInspector.inspect(dir, withDialect(vandal));
        assertThat(calls).hasValue(2);
        assertThat(seen).allSatisfy(b -> assertThat(b).isEqualTo(onDisk));
        assertThat(first.contract()).isEqualTo(second.contract());
        assertThat(((ContractVerdict.Accepted) first.contract().orElseThrow()).sha256())
                .isEqualTo(Sha256Digest.hash(onDisk));
    }

    @Test
    void badRegistrationsAreRefusedAtBuildTime() {
        for (String type : List.of(
                SkillContract.RECORD_TYPE,
                "skill-contract/2",
                "skill-contractx",
                "",
                "Acme/1",
                "-acme",
                "acme permissions",
                "a".repeat(65))) {
            assertThatThrownBy(() -> InspectOptions.builder().contractDialect(named(type)))
                    .as(type)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> InspectOptions.builder().contractDialect(named(null)))
                .isInstanceOf(IllegalArgumentException.class);
        ContractDialect throwingName = new ContractDialect() {
            @Override
            public String recordType() {
                throw new IllegalStateException("no");
            }

            @Override
            public Result parse(byte[] bytes, String directoryName, Optional<String> namespace) {
                return null;
            }
        };
        assertThatThrownBy(() -> InspectOptions.builder().contractDialect(throwingName))
                .isInstanceOf(IllegalArgumentException.class);
        InspectOptions.Builder twice = InspectOptions.builder().contractDialect(new AcmeDialect());
        assertThatThrownBy(() -> twice.contractDialect(named(AcmeDialect.TYPE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two contract dialects");
        // Several dialects for different record types are fine, and the canonical constructor
        // refuses the built-in name as a key too.
        InspectOptions two = InspectOptions.builder()
                .contractDialect(new AcmeDialect())
                .contractDialect(named("acme-permissions/2"))
                .contractDialect(named("a".repeat(64)))
                .build();
        assertThat(two.contractDialects()).containsOnlyKeys(AcmeDialect.TYPE, "acme-permissions/2", "a".repeat(64));
        assertThatThrownBy(() -> new InspectOptions(
                        ValidationProfile.STRICT,
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.empty(),
                        Map.of(SkillContract.RECORD_TYPE, new AcmeDialect())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ContractParser.parse(
                        new byte[0], NAME, Optional.empty(), Map.of("skill-contract", new AcmeDialect())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBuiltInRecordIsNeverHandedToADialect() {
        AtomicInteger calls = new AtomicInteger();
        Path dir = skill("a", ContractParserTest.bytes(ContractParserTest.valid()));
        Inspection i = SkillInspector.inspect(dir, withDialect(dialect(b -> {
            calls.incrementAndGet();
            return null;
        })));
        assertThat(i.contract()).containsInstanceOf(ContractVerdict.Accepted.class);
        assertThat(calls).hasValue(0);
    }

    private static ContractDialect named(String type) {
        return new ContractDialect() {
            @Override
            public String recordType() {
                return type;
            }

            @Override
            public Result parse(byte[] bytes, String directoryName, Optional<String> namespace) {
                return null;
            }
        };
    }

    private static SkillContract copy(SkillContract c, List<AgentRequirement> agents, List<String> credentials) {
        return new SkillContract(
                c.identity(),
                c.origin(),
                agents,
                c.inputTypes(),
                c.tools(),
                credentials,
                c.permissionMode(),
                c.networkDestinations(),
                c.sideEffectClass());
    }

    private static <T> List<T> nCopies(T value, int n) {
        return java.util.Collections.nCopies(n, value);
    }

    private static List<String> numbered(int n) {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add("T" + k);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable, R> R sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
