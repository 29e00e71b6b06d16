package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.shared.Text;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ValueTypesTest {
    static final Revision REVISION =
            Revision.parse("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    static ExecutionManifest manifest(String entry, List<String> files) {
        return new ExecutionManifest(
                1,
                PortablePath.of(entry),
                files.stream().map(PortablePath::of).toList(),
                "{\"type\":\"object\",\"properties\":{}}",
                "{\"type\":\"object\",\"properties\":{}}",
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
    }

    @Test
    void manifestEnforcesEntrypointAndFileRules() {
        assertThat(manifest("scripts/run.mjs", List.of("scripts/run.mjs")).entrypointKind())
                .isEqualTo(EntrypointKind.ES_MODULE);
        assertThat(manifest("run.cjs", List.of("lib.cjs", "run.cjs")).entrypointKind())
                .isEqualTo(EntrypointKind.COMMONJS);
        assertCode(() -> manifest("run.js", List.of("run.js")), ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME);
        assertCode(() -> manifest("run.py", List.of("run.py")), ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME);
        assertCode(() -> manifest("run.sh", List.of("run.sh")), ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME);
        assertCode(() -> manifest("run.mjs", List.of("other.mjs")), ErrorCode.MANIFEST_ENTRYPOINT_NOT_LISTED);
        assertCode(() -> manifest("run.mjs", List.of()), ErrorCode.MANIFEST_FILES_COUNT);
        assertCode(
                () -> manifest("run.mjs", List.of("run.mjs", "README.md", "readme.md")),
                ErrorCode.MANIFEST_FILE_DUPLICATE);
        List<String> many = new java.util.ArrayList<>();
        for (int i = 0; i < 64; i++) {
            many.add("f" + i + ".mjs");
        }
        assertThat(manifest("f0.mjs", many).files()).hasSize(64);
        many.add("f64.mjs");
        assertCode(() -> manifest("f0.mjs", many), ErrorCode.MANIFEST_FILES_COUNT);
    }

    @Test
    void manifestCopiesItsFileList() {
        List<PortablePath> files = new java.util.ArrayList<>(List.of(PortablePath.of("run.mjs")));
        ExecutionManifest m = new ExecutionManifest(
                1, PortablePath.of("run.mjs"), files, "{}", "{}", Timeout.DEFAULT, OutputLimit.DEFAULT);
        files.add(PortablePath.of("x.mjs"));
        assertThat(m.files()).hasSize(1);
        assertThatThrownBy(() -> m.files().add(PortablePath.of("y.mjs")))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void envelopeRefusesMisleadingCombinations() {
        RunId run = RunId.of("run-1");
        ExecutionEnvelope ok = new ExecutionEnvelope(
                ExecutionStatus.SUCCEEDED,
                run,
                Optional.of(REVISION),
                Optional.of("v20.20.2"),
                Duration.ofMillis(40),
                ProcessExit.code(0),
                Optional.of("{}"),
                List.of(),
                CleanupReport.proven(1, false),
                HardeningLayer.L0);
        assertThat(ok.succeeded()).isTrue();
        assertThat(ok.runtimeSha256()).isEmpty();

        // A success may carry a warning (a staging directory that could not be removed), never an error.
        Diagnostic kept = Diagnostic.warning(ErrorCode.STAGING_RETAINED, "", "kept");
        ExecutionEnvelope warned = new ExecutionEnvelope(
                ExecutionStatus.SUCCEEDED,
                run,
                Optional.of(REVISION),
                Optional.of("v20.20.2"),
                Duration.ofMillis(40),
                ProcessExit.code(0),
                Optional.of("{}"),
                List.of(kept),
                CleanupReport.proven(1, false),
                HardeningLayer.L0,
                Optional.of(Sha256Digest.hash(new byte[0])));
        assertThat(warned.succeeded()).isTrue();
        assertThat(warned.runtimeSha256()).isPresent();
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.of("v20.20.2"),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.of("{}"),
                        List.of(Diagnostic.error(ErrorCode.STAGING_RETAINED, "", "kept")),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        // A failure needs an error, not only a warning; a digest comes with a version.
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.FAILED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(1),
                        Optional.empty(),
                        List.of(kept),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.of("{}"),
                        List.of(),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0,
                        Optional.of(Sha256Digest.hash(new byte[0]))))
                .isInstanceOf(IllegalArgumentException.class);

        // Success with unknown cleanup, a detached descendant, a non-zero exit or no output is impossible.
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.of("{}"),
                        List.of(),
                        CleanupReport.unknown(1, false, Optional.empty()),
                        HardeningLayer.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.of("{}"),
                        List.of(),
                        CleanupReport.proven(2, true),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(1),
                        Optional.of("{}"),
                        List.of(),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.empty(),
                        List.of(),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        // Failure never carries output; unknown cleanup is always CLEANUP_UNKNOWN.
        Diagnostic timeout = Diagnostic.error(ErrorCode.EXEC_TIMEOUT, "", "deadline passed");
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.FAILED,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.code(1),
                        Optional.of("{}"),
                        List.of(timeout),
                        CleanupReport.proven(1, false),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.TIMED_OUT,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.signal(9),
                        Optional.empty(),
                        List.of(timeout),
                        CleanupReport.unknown(3, true, Optional.empty()),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);
        Diagnostic retained = Diagnostic.warning(ErrorCode.STAGING_RETAINED, "", "kept");
        ExecutionEnvelope unknown = new ExecutionEnvelope(
                ExecutionStatus.CLEANUP_UNKNOWN,
                run,
                Optional.of(REVISION),
                Optional.empty(),
                Duration.ZERO,
                ProcessExit.signal(9),
                Optional.empty(),
                List.of(timeout, retained),
                CleanupReport.unknown(3, true, Optional.of(Path.of("/data/staging/x"))),
                HardeningLayer.NONE);
        assertThat(unknown.errorCodes()).containsExactly(ErrorCode.EXEC_TIMEOUT, ErrorCode.STAGING_RETAINED);
        // A retained staging directory without its warning is impossible, on any status.
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.CLEANUP_UNKNOWN,
                        run,
                        Optional.of(REVISION),
                        Optional.empty(),
                        Duration.ZERO,
                        ProcessExit.signal(9),
                        Optional.empty(),
                        List.of(timeout),
                        CleanupReport.unknown(3, true, Optional.of(Path.of("/data/staging/x"))),
                        HardeningLayer.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ExecutionEnvelope(
                        ExecutionStatus.SUCCEEDED,
                        run,
                        Optional.of(REVISION),
                        Optional.of("v20.20.2"),
                        Duration.ZERO,
                        ProcessExit.code(0),
                        Optional.of("{}"),
                        List.of(),
                        new CleanupReport(CleanupStatus.PROVEN, 1, false, Optional.of(Path.of("/data/staging/x"))),
                        HardeningLayer.L0))
                .isInstanceOf(IllegalArgumentException.class);

        ExecutionEnvelope refused = ExecutionEnvelope.refused(
                run, Optional.empty(), Duration.ZERO, List.of(Diagnostic.error(ErrorCode.CONSENT_DENIED, "", "no")));
        assertThat(refused.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThatThrownBy(() -> ExecutionEnvelope.refused(run, Optional.empty(), Duration.ZERO, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void diagnosticsSanitiseAndBoundTheirText() {
        Diagnostic d = Diagnostic.error(ErrorCode.JSON_SYNTAX, "/a\u001b[31m", "bad \u001b[2J" + "x".repeat(5_000));
        assertThat(d.message()).doesNotContain("\u001b").contains("\\u001B");
        assertThat(d.message().codePointCount(0, d.message().length()))
                .isLessThanOrEqualTo(Diagnostic.MAX_MESSAGE_LENGTH + 1);
        assertThat(d.location()).doesNotContain("\u001b");
        assertThat(Text.excerpt("y".repeat(100)))
                .hasSize(Text.EXCERPT_CODE_POINTS + 1)
                .endsWith("\u2026");
        assertThat(Text.excerpt("short")).isEqualTo("short");
    }

    @Test
    void identifiersAreBoundedAndPrintable() {
        assertThat(RunId.random().value()).hasSize(36);
        assertThat(AgentId.of("agent:main-1").value()).isEqualTo("agent:main-1");
        for (String bad : List.of("", "a b", "a/b", "x".repeat(129), "ünï", "a\nb")) {
            assertCode(() -> RunId.of(bad), ErrorCode.INVALID_IDENTIFIER);
            assertCode(() -> AgentId.of(bad), ErrorCode.INVALID_IDENTIFIER);
        }
    }

    @Test
    void runtimeIdentityNeedsAnAbsolutePathAndAVersion() {
        assertThat(new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.2", Optional.empty()).version())
                .isEqualTo("v20.20.2");
        assertCode(
                () -> new RuntimeIdentity(Path.of("node"), "v20.20.2", Optional.empty()),
                ErrorCode.RUNTIME_UNAVAILABLE);
        assertCode(
                () -> new RuntimeIdentity(Path.of("/usr/bin/node"), "latest", Optional.empty()),
                ErrorCode.RUNTIME_MISMATCH);
    }

    @Test
    void networkDestinationsAreCanonicalCredentialFreeHttpsOrigins() {
        assertThat(NetworkDestination.parse("https://API.Example.com").origin()).isEqualTo("https://api.example.com");
        assertThat(NetworkDestination.parse("https://api.example.com:443/").origin())
                .isEqualTo("https://api.example.com");
        assertThat(NetworkDestination.parse("https://api.example.com:8443").port())
                .isEqualTo(8443);
        assertThat(NetworkDestination.parse("https://bücher.example").origin())
                .isEqualTo("https://xn--bcher-kva.example");
        assertThat(NetworkDestination.parse("https://[::1]:9000").origin()).isEqualTo("https://[::1]:9000");
        for (String bad : List.of(
                "http://example.com",
                "https://user:pw@example.com",
                "https://example.com/path",
                "https://example.com?q=1",
                "https://example.com#f",
                "https://",
                "https://:443",
                "https://example.com:0",
                "https://example.com:65536",
                "https://exa mple.com",
                "ftp://example.com",
                "example.com",
                "https://example.com:44a",
                "https://a..b",
                "https://ex%61mple.com")) {
            assertCode(() -> NetworkDestination.parse(bad), ErrorCode.CONTRACT_DESTINATION_INVALID);
        }
        assertCode(() -> new NetworkDestination("https://Example.com"), ErrorCode.CONTRACT_DESTINATION_INVALID);
    }

    @Test
    void contractRelatesSideEffectsPermissionsAndDestinations() {
        SkillContract.Identity identity = new SkillContract.Identity("acme/pdf-fill", SemVer.parse("1.2.0"));
        SkillContract.Origin local = new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty());
        AgentRequirement agent = new AgentRequirement("codex", SemVer.parse("1.0.0"), SemVer.parse("2.0.0"));
        SkillContract ok = new SkillContract(
                identity,
                local,
                List.of(agent),
                Set.of(InputType.TEXT),
                Set.of(ToolClass.FILESYSTEM_READ),
                List.of(),
                PermissionMode.WORKSPACE_WRITE,
                List.of(),
                SideEffectClass.WORKSPACE_WRITE);
        assertThat(ok.identity().namespace()).isEqualTo("acme");
        assertThat(ok.identity().directoryName()).isEqualTo("pdf-fill");
        assertCode(
                () -> new SkillContract(
                        identity,
                        local,
                        List.of(agent),
                        Set.of(),
                        Set.of(),
                        List.of(),
                        PermissionMode.READ_ONLY,
                        List.of(),
                        SideEffectClass.WORKSPACE_WRITE),
                ErrorCode.CONTRACT_SIDE_EFFECT_PERMISSION);
        assertCode(
                () -> new SkillContract(
                        identity,
                        local,
                        List.of(agent),
                        Set.of(),
                        Set.of(),
                        List.of(),
                        PermissionMode.FULL_ACCESS,
                        List.of(),
                        SideEffectClass.EXTERNAL_WRITE),
                ErrorCode.CONTRACT_DESTINATION_REQUIRED);
        assertThat(new SkillContract(
                                identity,
                                local,
                                List.of(agent),
                                Set.of(),
                                Set.of(),
                                List.of(),
                                PermissionMode.FULL_ACCESS,
                                List.of(NetworkDestination.parse("https://api.example.com")),
                                SideEffectClass.EXTERNAL_WRITE)
                        .networkDestinations())
                .hasSize(1);
        assertCode(
                () -> new SkillContract.Identity("pdf-fill", SemVer.parse("1.0.0")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH);
        assertCode(
                () -> new SkillContract.Identity("a/b/c", SemVer.parse("1.0.0")), ErrorCode.CONTRACT_IDENTITY_MISMATCH);
        assertCode(
                () -> new SkillContract.Origin(OriginType.SIGNED, Optional.empty()), ErrorCode.CONTRACT_MISSING_FIELD);
        assertCode(
                () -> new AgentRequirement("codex", SemVer.parse("2.0.0"), SemVer.parse("1.0.0")),
                ErrorCode.CONTRACT_SEMVER);
        assertThat(agent.accepts("codex", SemVer.parse("2.0.0"))).isTrue();
        assertThat(agent.accepts("codex", SemVer.parse("2.0.1-rc.1"))).isFalse();
        assertThat(agent.accepts("codex", SemVer.parse("1.0.0-rc.1"))).isFalse();
        assertThat(agent.accepts("other", SemVer.parse("1.5.0"))).isFalse();
        assertThat(PermissionMode.fromWireName("full-access")).isEqualTo(PermissionMode.FULL_ACCESS);
        assertCode(() -> PermissionMode.fromWireName("Full-Access"), ErrorCode.CONTRACT_TYPE);
        assertThat(ToolClass.fromWireName("filesystem-read")).isEqualTo(ToolClass.FILESYSTEM_READ);
        assertThat(InputType.fromWireName("structured-data")).isEqualTo(InputType.STRUCTURED_DATA);
        assertThat(SideEffectClass.fromWireName("none")).isEqualTo(SideEffectClass.NONE);
        assertThat(OriginType.fromWireName("signed")).isEqualTo(OriginType.SIGNED);
        assertThat(new SemVer(BigInteger.ONE, BigInteger.ZERO, BigInteger.ZERO, List.of(), List.of()).toString())
                .isEqualTo("1.0.0");
    }

    static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, ErrorCode code) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(code));
    }
}
