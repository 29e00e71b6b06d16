package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.InputType;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Severity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Arbitrary {@link ContractDialect} behaviour — exceptions and errors of every kind, {@code null},
 * refusals with random codes and severities, contracts with random (often rule-breaking) fields —
 * never escapes as an exception: the verdict is an acceptance that satisfies the built-in record's
 * rules and names the dialect, or a rejection with {@code CONTRACT_*} errors. Jazzer drives the
 * behaviour under {@code JAZZER_FUZZ=1} (seeds in regression mode under {@code mvn test}); a
 * seeded generator drives the same behaviours through {@link SkillInspector} on real bundles.
 */
class ContractDialectFuzzTest {
    private static final String DIRECTORY = "read-only-review";

    @TempDir
    Path root;

    /** The source of choices: Jazzer's data or a seeded {@link Random}. */
    interface Choices {
        int pick(int bound);

        String text();
    }

    @FuzzTest(maxDuration = "30s")
    void anyDialectBehaviourGivesAVerdict(FuzzedDataProvider data) {
        Choices choices = new Choices() {
            @Override
            public int pick(int bound) {
                return data.consumeInt(0, bound - 1);
            }

            @Override
            public String text() {
                return data.consumeString(40);
            }
        };
        Optional<String> namespace = data.consumeBoolean() ? Optional.of("global") : Optional.empty();
        byte[] file = record(data.consumeString(200));
        ContractDialect dialect = new Arbitrary(choices);
        ContractVerdict verdict = ContractParser.parse(
                file,
                DIRECTORY,
                namespace,
                InspectOptions.builder().contractDialect(dialect).build().contractDialects());
        check(verdict, file, namespace);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946})
    void anyDialectBehaviourGivesAnInspection(long seed) {
        Random random = new Random(seed);
        Choices choices = new Choices() {
            @Override
            public int pick(int bound) {
                return random.nextInt(bound);
            }

            @Override
            public String text() {
                return random.nextInt(4) == 0 ? "global/" + DIRECTORY : Long.toHexString(random.nextLong());
            }
        };
        Path dir = Captures.executable(root.resolve("s" + seed), DIRECTORY);
        byte[] file = record("seed " + seed);
        Captures.write(dir.resolve(SkillContract.FILE_NAME), file);
        InspectOptions options =
                InspectOptions.builder().contractDialect(new Arbitrary(choices)).build();
        for (int round = 0; round < 25; round++) {
            Inspection[] out = new Inspection[1];
            assertThatCode(() -> out[0] = SkillInspector.inspect(dir, options)).doesNotThrowAnyException();
            // A behaviour may have thrown InterruptedException: the flag is restored for the caller,
            // and a set flag would fail the next round's (interruptible) capture.
            Thread.interrupted();
            check(out[0].contract().orElseThrow(), file, Optional.empty());
            if (!(out[0].contract().orElseThrow() instanceof ContractVerdict.Accepted)) {
                assertThat(out[0].passes()).isFalse();
                assertThat(out[0].signature()).isInstanceOf(SignatureVerdict.NotChecked.class);
            }
        }
    }

    private static byte[] record(String note) {
        String escaped = note.replace("\\", "\\\\").replace("\"", "\\\"");
        StringBuilder safe = new StringBuilder();
        escaped.codePoints().forEach(c -> {
            if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
                safe.append(String.format("\\u%04x", c));
            } else {
                safe.appendCodePoint(c);
            }
        });
        return ("{\"recordType\":\"" + AcmeDialect.TYPE + "\",\"note\":\"" + safe + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static void check(ContractVerdict verdict, byte[] file, Optional<String> namespace) {
        assertThat(verdict).isNotNull();
        if (verdict instanceof ContractVerdict.Accepted accepted) {
            assertThat(accepted.recordType()).isEqualTo(AcmeDialect.TYPE);
            assertThat(accepted.sha256()).isEqualTo(Sha256Digest.hash(file));
            SkillContract c = accepted.contract();
            assertThat(c.identity().directoryName()).isEqualTo(DIRECTORY);
            namespace.ifPresent(ns -> assertThat(c.identity().namespace()).isEqualTo(ns));
            assertThat(c.agents()).isNotEmpty().hasSizeLessThanOrEqualTo(32);
            assertThat(c.credentials()).doesNotHaveDuplicates().hasSizeLessThanOrEqualTo(32);
            assertThat(c.networkDestinations()).doesNotHaveDuplicates();
            return;
        }
        assertThat(verdict).isInstanceOf(ContractVerdict.Rejected.class);
        assertThat(verdict.problems()).isNotEmpty().anyMatch(Diagnostic::isError);
        assertThat(verdict.problems()).allMatch(d -> d.code().group() == ErrorGroup.CONTRACT);
    }

    /** A dialect whose every answer is drawn from the choices. */
    private static final class Arbitrary implements ContractDialect {
        private final Choices choices;

        Arbitrary(Choices choices) {
            this.choices = choices;
        }

        @Override
        public String recordType() {
            return AcmeDialect.TYPE;
        }

        @Override
        public Result parse(byte[] bytes, String directoryName, Optional<String> namespace) {
            switch (choices.pick(9)) {
                case 0:
                    throw new IllegalStateException(choices.text());
                case 1:
                    throw new AssertionError(choices.text());
                case 2:
                    return sneaky(new IOException(choices.text()));
                case 3:
                    return sneaky(new InterruptedException());
                case 4:
                    throw new StackOverflowError();
                case 5:
                    return null;
                case 6:
                    return refusal();
                default:
                    return Result.mapped(contract(directoryName));
            }
        }

        private Result refusal() {
            List<Diagnostic> out = new ArrayList<>();
            int n = choices.pick(4);
            ErrorCode[] codes = ErrorCode.values();
            Severity[] severities = Severity.values();
            for (int i = 0; i < n; i++) {
                out.add(new Diagnostic(
                        codes[choices.pick(codes.length)],
                        severities[choices.pick(severities.length)],
                        "",
                        choices.text()));
            }
            return Result.refused(out); // often invalid: the constructor throws inside parse
        }

        private SkillContract contract(String directoryName) {
            String id = switch (choices.pick(3)) {
                case 0 -> "global/" + directoryName;
                case 1 -> "other/" + directoryName;
                default -> choices.text();
            };
            List<AgentRequirement> agents = new ArrayList<>();
            int agentCount = choices.pick(3) == 0 ? choices.pick(40) : 1;
            for (int i = 0; i < agentCount; i++) {
                agents.add(new AgentRequirement("codex", SemVer.parse("1.0.0"), SemVer.parse("2.0.0")));
            }
            List<String> credentials = new ArrayList<>();
            int credentialCount = choices.pick(3) == 0 ? choices.pick(40) : 0;
            for (int i = 0; i < credentialCount; i++) {
                credentials.add(choices.pick(2) == 0 ? "T" + i : choices.text());
            }
            List<NetworkDestination> destinations = new ArrayList<>();
            int destinationCount = choices.pick(3);
            for (int i = 0; i < destinationCount; i++) {
                destinations.add(NetworkDestination.parse("https://h" + choices.pick(2) + ".example.com"));
            }
            PermissionMode[] modes = PermissionMode.values();
            SideEffectClass[] effects = SideEffectClass.values();
            return new SkillContract(
                    new SkillContract.Identity(id, SemVer.parse("1.0.0")),
                    choices.pick(2) == 0
                            ? new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty())
                            : new SkillContract.Origin(OriginType.SIGNED, Optional.of("alice@example.com")),
                    agents,
                    Set.of(InputType.TEXT),
                    Set.of(ToolClass.FILESYSTEM),
                    credentials,
                    modes[choices.pick(modes.length)],
                    destinations,
                    effects[choices.pick(effects.length)]);
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> Result sneaky(Throwable t) throws E {
            throw (E) t;
        }
    }
}
