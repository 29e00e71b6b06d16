package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.consent.SkillLocation;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Issue 24, finding 7 (decision 0768), through the public API: a directory {@code rеlease-notes}
 * (Cyrillic {@code е}) whose SKILL.md says {@code release-notes} is listed and found as {@code
 * release-notes}; the catalog flags it, and the approval and activation requests — the very text the
 * terminal channel prints — show its root, its directory and the findings by code. A real node runs
 * the execution.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class CatalogConfusableNamesTest {
    private static final String CYRILLIC_E = "\u0435";
    private static final String FULLWIDTH_W = "\uFF57";

    private static final AgentContext CONTEXT = HostileFixture.EXAMPLE_AGENT;

    private HostileFixture fx;
    private Path first;
    private Path second;
    private Path workspace;

    @BeforeAll
    void setUp() throws IOException {
        fx = HostileFixture.create("skillgate-engine-confusable");
        first = fx.skillRoot("first");
        second = fx.skillRoot("second");
        workspace = fx.workspace();
        // r<Cyrillic e>lease-notes, holding a SKILL.md that says release-notes
        Files.move(
                Support.copySkill(Support.examples().resolve("release-notes"), first),
                first.resolve("r" + CYRILLIC_E + "lease-notes"));
        // Hello-World: matches hello-world only after case folding
        Files.move(Support.copySkill(Support.examples().resolve("hello-world"), first), first.resolve("Hello-World"));
        // <full-width w>ord-stats: matches word-stats only after NFKC (the reference validator's own rule)
        Files.move(
                Support.copySkill(Support.examples().resolve("word-stats"), second),
                second.resolve(FULLWIDTH_W + "ord-stats"));
        // m<Cyrillic e>eting-notes: a prompt skill without a contract (a contract's identity names the
        // directory, so a contracted look-alike is refused before anyone is asked)
        Support.write(
                first.resolve("m" + CYRILLIC_E + "eting-notes").resolve("SKILL.md"),
                "---\nname: meeting-notes\ndescription: Summarises meeting notes.\n---\n# Meeting notes\n");
        Support.write(
                second.resolve("plain-notes").resolve("SKILL.md"),
                "---\nname: plain-notes\ndescription: Plain notes, nothing to look twice at.\n---\n# Plain\n");
    }

    @AfterAll
    void tearDown() throws IOException {
        fx.close();
    }

    private SkillGate.Builder builder(SkillGateAdmin admin, ApprovalChannel channel) {
        return SkillGate.builder()
                .admin(admin)
                .skillRoot(first)
                .skillRoot(second)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel);
    }

    @Test
    void theCatalogFlagsLookAlikeDirectoryNamesWithStableCodes() throws Exception {
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, new ConsoleApprovalChannel(sink(), new StringReader("")))
                        .build()) {
            Map<String, SkillSummary> byName =
                    gate.catalog().stream().collect(Collectors.toMap(SkillSummary::name, Function.identity()));
            assertThat(byName)
                    .containsOnlyKeys("release-notes", "meeting-notes", "hello-world", "word-stats", "plain-notes");

            SkillSummary cyrillic = byName.get("release-notes");
            assertThat(cyrillic.location().getParent().getFileName().toString())
                    .isEqualTo("r" + CYRILLIC_E + "lease-notes");
            assertThat(cyrillic.nameFlagged()).isTrue();
            assertThat(cyrillic.nameFindingCodes())
                    .containsExactly(
                            ErrorCode.NAME_DIR_MATCH,
                            ErrorCode.LAYOUT_NAME_MIXED_SCRIPTS,
                            ErrorCode.LAYOUT_NAME_NON_ASCII);
            assertThat(cyrillic.nameFindings()).allMatch(d -> !d.isError());
            assertThat(cyrillic.nameFindings().stream().map(Diagnostic::message))
                    .anyMatch(m -> m.contains("rU+0435lease-notes") && m.contains("CYRILLIC, LATIN"))
                    .anyMatch(m -> m.contains("CYRILLIC SMALL LETTER IE"));

            assertThat(byName.get("hello-world").nameFindingCodes()).containsExactly(ErrorCode.LAYOUT_NAME_NORMALISED);
            SkillSummary fullWidth = byName.get("word-stats");
            assertThat(fullWidth.nameFindingCodes())
                    .containsExactly(ErrorCode.LAYOUT_NAME_NORMALISED, ErrorCode.LAYOUT_NAME_NON_ASCII);

            assertThat(byName.get("plain-notes").nameFlagged()).isFalse();
            assertThat(byName.get("plain-notes").nameFindings()).isEmpty();
        }
    }

    @Test
    void anActivationOverAConfusableDirectoryShowsItsLocationAndTheFlagToTheHuman() throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (ConsoleApprovalChannel terminal = new ConsoleApprovalChannel(
                        new PrintStream(screen, true, StandardCharsets.UTF_8), new StringReader("no\n"));
                SkillGateAdmin admin = fx.admin()) {
            Recording recording = new Recording(terminal);
            try (SkillGate gate = builder(admin, recording).build()) {
                // A contracted look-alike: the contract's identity names the real directory, so it is refused
                // before the human is asked.
                Activation contracted = gate.activate(AgentId.of("example-agent-1.5"), "release-notes", CONTEXT);
                assertThat(contracted)
                        .isInstanceOfSatisfying(
                                Activation.Refused.class,
                                r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                        .containsExactly(ErrorCode.CONTRACT_IDENTITY_MISMATCH));
                assertThat(recording.activation.get()).isNull();
                Activation a = gate.activate(AgentId.of("example-agent-1.5"), "meeting-notes", CONTEXT);
                assertThat(a)
                        .isInstanceOfSatisfying(
                                Activation.Refused.class,
                                r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                        .containsExactly(ErrorCode.CONSENT_DENIED));
            }
            SkillLocation shown = recording.activation.get().location().orElseThrow();
            assertThat(shown.root()).isEqualTo(first.toAbsolutePath().normalize());
            assertThat(shown.directory()).isEqualTo(first.resolve("m" + CYRILLIC_E + "eting-notes"));
            assertThat(shown.codes()).contains(ErrorCode.LAYOUT_NAME_MIXED_SCRIPTS, ErrorCode.NAME_DIR_MATCH);
            String text = screen.toString(StandardCharsets.UTF_8);
            assertThat(text)
                    .contains("skill root:")
                    .contains("skill directory:")
                    .contains("NAME WARNING: NAME_DIR_MATCH:")
                    .contains("NAME WARNING: LAYOUT_NAME_MIXED_SCRIPTS:")
                    .contains("NAME WARNING: LAYOUT_NAME_NON_ASCII:")
                    .contains("mU+0435eting-notes");
        }
    }

    @Test
    void anExecutionOverAFullWidthDirectoryShowsTheFlagAndRunsOnlyOnceApproved() throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (ConsoleApprovalChannel terminal = new ConsoleApprovalChannel(
                        new PrintStream(screen, true, StandardCharsets.UTF_8), new StringReader("yes\n"));
                SkillGateAdmin admin = fx.admin()) {
            Recording recording = new Recording(terminal);
            ExecutionEnvelope env;
            try (SkillGate gate = builder(admin, recording).build()) {
                env = gate.execute(ExecutionRequest.of(
                        RunId.random(), AgentId.of("a"), "word-stats", "{\"text\":\"one two two\"}", workspace));
            }
            assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            SkillLocation shown = recording.execution.get().location().orElseThrow();
            assertThat(shown.root()).isEqualTo(second.toAbsolutePath().normalize());
            assertThat(shown.directory().getFileName().toString()).isEqualTo(FULLWIDTH_W + "ord-stats");
            assertThat(shown.codes())
                    .containsExactly(ErrorCode.LAYOUT_NAME_NORMALISED, ErrorCode.LAYOUT_NAME_NON_ASCII);
            assertThat(screen.toString(StandardCharsets.UTF_8))
                    .contains("skill directory:")
                    .contains(
                            "NAME WARNING: LAYOUT_NAME_NORMALISED: the directory name 'U+FF57ord-stats' only matches");
        }
    }

    private static PrintStream sink() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Passes every request on to the terminal channel and keeps the last one of each kind. */
    private static final class Recording implements ApprovalChannel {
        private final ApprovalChannel next;
        final AtomicReference<ApprovalRequest> execution = new AtomicReference<>();
        final AtomicReference<ActivationApprovalRequest> activation = new AtomicReference<>();

        Recording(ApprovalChannel next) {
            this.next = next;
        }

        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            execution.set(request);
            return next.request(request);
        }

        @Override
        public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
            activation.set(request);
            return next.requestActivation(request);
        }
    }
}
