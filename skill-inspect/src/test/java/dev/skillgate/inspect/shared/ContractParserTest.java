package dev.skillgate.inspect.shared;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.Limits;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

/** Every rule of the strict contract parser, with an input that fails it and one that passes. */
public class ContractParserTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The seed's example contract, as skillgate spells it. */
    public static Map<String, Object> valid() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("schemaVersion", 1);
        c.put("recordType", "skill-contract");
        c.put("identity", new LinkedHashMap<>(Map.of("id", "global/read-only-review", "version", "1.0.0")));
        c.put("origin", new LinkedHashMap<>(Map.of("type", "local-unsigned", "publisher", "Local author")));
        List<Object> agents = new ArrayList<>();
        agents.add(new LinkedHashMap<>(Map.of("kind", "codex", "minVersion", "0.130.0", "maxVersion", "0.200.0")));
        c.put("agents", agents);
        c.put("inputTypes", new ArrayList<>(List.of("text")));
        c.put("tools", new ArrayList<>(List.of("filesystem")));
        c.put("credentials", new ArrayList<>());
        c.put("permissionMode", "read-only");
        c.put("networkDestinations", new ArrayList<>());
        c.put("sideEffectClass", "none");
        return c;
    }

    public static byte[] bytes(Map<String, Object> contract) {
        return JSON.writeValueAsBytes(contract);
    }

    private static ContractVerdict parse(byte[] bytes) {
        return ContractParser.parse(bytes, "read-only-review", Optional.empty());
    }

    private static ContractVerdict parse(Consumer<Map<String, Object>> change) {
        Map<String, Object> c = valid();
        change.accept(c);
        return parse(bytes(c));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> child(Map<String, Object> c, String key) {
        return (Map<String, Object>) c.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> agent(Map<String, Object> c) {
        return (Map<String, Object>) ((List<Object>) c.get("agents")).get(0);
    }

    private static SkillContract accepted(ContractVerdict verdict) {
        assertThat(verdict.problems()).as("problems").isEmpty();
        assertThat(verdict).isInstanceOf(ContractVerdict.Accepted.class);
        return ((ContractVerdict.Accepted) verdict).contract();
    }

    private static void rejected(ContractVerdict verdict, ErrorCode code, String pointer) {
        assertThat(verdict).isInstanceOf(ContractVerdict.Rejected.class);
        assertThat(verdict.problems()).as("%s", verdict.problems()).anySatisfy(d -> {
            assertThat(d.code()).isEqualTo(code);
            assertThat(d.location()).isEqualTo(pointer);
        });
    }

    @Test
    void theSeedContractParsesToItsValues() {
        byte[] bytes = bytes(valid());
        ContractVerdict verdict = parse(bytes);
        SkillContract c = accepted(verdict);
        assertThat(((ContractVerdict.Accepted) verdict).sha256()).isEqualTo(Sha256Digest.hash(bytes));
        assertThat(c.identity().id()).isEqualTo("global/read-only-review");
        assertThat(c.identity().version()).isEqualTo(SemVer.parse("1.0.0"));
        assertThat(c.origin().type()).isEqualTo(OriginType.LOCAL_UNSIGNED);
        assertThat(c.origin().publisher()).contains("Local author");
        assertThat(c.agents()).singleElement().satisfies(a -> {
            assertThat(a.kind()).isEqualTo("codex");
            assertThat(a.minVersion()).isEqualTo(SemVer.parse("0.130.0"));
        });
        assertThat(c.inputTypes()).containsExactly(InputType.TEXT);
        assertThat(c.tools()).containsExactly(ToolClass.FILESYSTEM);
        assertThat(c.permissionMode()).isEqualTo(PermissionMode.READ_ONLY);
        assertThat(c.sideEffectClass()).isEqualTo(SideEffectClass.NONE);
    }

    @Test
    void sizeBound() {
        byte[] base = bytes(valid());
        byte[] exact = new byte[Limits.MANIFEST_BYTES];
        java.util.Arrays.fill(exact, (byte) ' ');
        System.arraycopy(base, 0, exact, 0, base.length);
        accepted(parse(exact));
        byte[] over = java.util.Arrays.copyOf(exact, exact.length + 1);
        over[over.length - 1] = ' ';
        rejected(parse(over), ErrorCode.CONTRACT_SYNTAX, "");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "{",
                "\uFEFF{}",
                "{\"schemaVersion\":1,\"schemaVersion\":1}",
                "{} {}",
                "{\"schemaVersion\":NaN}",
                "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
            })
    void malformedJsonIsASyntaxError(String text) {
        ContractVerdict verdict = parse(text.getBytes(StandardCharsets.UTF_8));
        assertThat(verdict.problems()).extracting(Diagnostic::code).containsExactly(ErrorCode.CONTRACT_SYNTAX);
    }

    @Test
    void invalidUtf8IsASyntaxError() {
        byte[] bytes = bytes(valid());
        bytes[bytes.length - 3] = (byte) 0xC3;
        rejected(parse(bytes), ErrorCode.CONTRACT_SYNTAX, "");
    }

    @Test
    void rootMustBeAnObject() {
        rejected(parse("[]".getBytes()), ErrorCode.CONTRACT_TYPE, "");
    }

    @Test
    void schemaVersionAndRecordType() {
        rejected(parse(c -> c.remove("schemaVersion")), ErrorCode.CONTRACT_MISSING_FIELD, "/schemaVersion");
        rejected(parse(c -> c.put("schemaVersion", "1")), ErrorCode.CONTRACT_TYPE, "/schemaVersion");
        rejected(parse(c -> c.put("schemaVersion", 2)), ErrorCode.CONTRACT_VERSION, "/schemaVersion");
        accepted(parse(c -> c.put("schemaVersion", new java.math.BigDecimal("1.0"))));
        rejected(parse(c -> c.remove("recordType")), ErrorCode.CONTRACT_MISSING_FIELD, "/recordType");
        rejected(parse(c -> c.put("recordType", "meldwork-skill-manifest")), ErrorCode.CONTRACT_VERSION, "/recordType");
        rejected(parse(c -> c.put("recordType", 1)), ErrorCode.CONTRACT_VERSION, "/recordType");
        // A wrong version stops the parse: the unknown field is not reported too.
        ContractVerdict v = parse(c -> {
            c.put("schemaVersion", 2);
            c.put("extra", 1);
        });
        assertThat(v.problems()).hasSize(1);
    }

    @Test
    void unknownFieldsAnywhereAndProtoAreRefused() {
        rejected(parse(c -> c.put("extra", true)), ErrorCode.CONTRACT_UNKNOWN_FIELD, "/extra");
        rejected(parse(c -> child(c, "identity").put("name", "x")), ErrorCode.CONTRACT_UNKNOWN_FIELD, "/identity/name");
        rejected(parse(c -> child(c, "origin").put("url", "x")), ErrorCode.CONTRACT_UNKNOWN_FIELD, "/origin/url");
        rejected(parse(c -> agent(c).put("exact", "1.0.0")), ErrorCode.CONTRACT_UNKNOWN_FIELD, "/agents/0/exact");
        rejected(parse(c -> c.put("a/b~c", 1)), ErrorCode.CONTRACT_UNKNOWN_FIELD, "/a~1b~0c");
        ContractVerdict proto = parse(c -> c.put("__proto__", Map.of()));
        rejected(proto, ErrorCode.CONTRACT_UNKNOWN_FIELD, "/__proto__");
        assertThat(proto.problems().get(0).message()).contains("__proto__ is refused");
        rejected(
                parse(c -> child(c, "identity").put("__proto__", "x")),
                ErrorCode.CONTRACT_UNKNOWN_FIELD,
                "/identity/__proto__");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "identity",
                "origin",
                "agents",
                "inputTypes",
                "tools",
                "credentials",
                "permissionMode",
                "networkDestinations",
                "sideEffectClass"
            })
    void everyFieldIsRequired(String field) {
        rejected(parse(c -> c.remove(field)), ErrorCode.CONTRACT_MISSING_FIELD, "/" + field);
    }

    @Test
    void nestedRequiredFields() {
        rejected(parse(c -> child(c, "identity").remove("id")), ErrorCode.CONTRACT_MISSING_FIELD, "/identity/id");
        rejected(
                parse(c -> child(c, "identity").remove("version")),
                ErrorCode.CONTRACT_MISSING_FIELD,
                "/identity/version");
        rejected(parse(c -> child(c, "origin").remove("type")), ErrorCode.CONTRACT_MISSING_FIELD, "/origin/type");
        rejected(parse(c -> agent(c).remove("kind")), ErrorCode.CONTRACT_MISSING_FIELD, "/agents/0/kind");
        rejected(parse(c -> agent(c).remove("maxVersion")), ErrorCode.CONTRACT_MISSING_FIELD, "/agents/0/maxVersion");
    }

    @Test
    void exactTypes() {
        rejected(parse(c -> c.put("identity", "global/x")), ErrorCode.CONTRACT_TYPE, "/identity");
        rejected(parse(c -> child(c, "identity").put("version", 1)), ErrorCode.CONTRACT_TYPE, "/identity/version");
        rejected(parse(c -> c.put("agents", Map.of())), ErrorCode.CONTRACT_TYPE, "/agents");
        rejected(parse(c -> c.put("agents", List.of("codex"))), ErrorCode.CONTRACT_TYPE, "/agents/0");
        rejected(parse(c -> c.put("inputTypes", "text")), ErrorCode.CONTRACT_TYPE, "/inputTypes");
        rejected(parse(c -> c.put("inputTypes", List.of(1))), ErrorCode.CONTRACT_TYPE, "/inputTypes/0");
        rejected(parse(c -> c.put("permissionMode", true)), ErrorCode.CONTRACT_TYPE, "/permissionMode");
        rejected(parse(c -> c.put("credentials", List.of(Map.of()))), ErrorCode.CONTRACT_TYPE, "/credentials/0");
        java.util.HashMap<String, Object> nullable = new java.util.HashMap<>();
        nullable.put("type", null);
        rejected(parse(c -> c.put("origin", nullable)), ErrorCode.CONTRACT_TYPE, "/origin/type");
    }

    @Test
    void identityIdIsNamespaceSlashDirectoryName() {
        rejected(
                parse(c -> child(c, "identity").put("id", "global/other-skill")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
        rejected(
                parse(c -> child(c, "identity").put("id", "read-only-review")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
        rejected(
                parse(c -> child(c, "identity").put("id", "a/b/read-only-review")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
        rejected(
                parse(c -> child(c, "identity").put("id", "Global/read-only-review")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
        accepted(parse(c -> child(c, "identity").put("id", "team-42/read-only-review")));
        byte[] bytes = bytes(valid());
        accepted(ContractParser.parse(bytes, "read-only-review", Optional.of("global")));
        rejected(
                ContractParser.parse(bytes, "read-only-review", Optional.of("acme")),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
        rejected(
                ContractParser.parse(bytes, "Read-Only-Review", Optional.empty()),
                ErrorCode.CONTRACT_IDENTITY_MISMATCH,
                "/identity/id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "v1.0.0", "01.0.0", "1.0.0-alpha.01", "1.0.0-", "1.0.0+", "1.0.0-a..b", " 1.0.0"})
    void versionsAreStrictSemVer(String version) {
        rejected(
                parse(c -> child(c, "identity").put("version", version)),
                ErrorCode.CONTRACT_SEMVER,
                "/identity/version");
        rejected(parse(c -> agent(c).put("minVersion", version)), ErrorCode.CONTRACT_SEMVER, "/agents/0/minVersion");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0", "1.0.0-rc.1+build.5", "1.0.0-alpha-1.0", "10.20.30", "1.0.0+001"})
    void validSemVerPasses(String version) {
        assertThat(accepted(parse(c -> child(c, "identity").put("version", version)))
                        .identity()
                        .version())
                .hasToString(version);
    }

    @Test
    void agentRanges() {
        rejected(parse(c -> c.put("agents", List.of())), ErrorCode.CONTRACT_TYPE, "/agents");
        List<Object> many = new ArrayList<>();
        for (int i = 0; i < 33; i++) {
            many.add(Map.of("kind", "a" + i, "minVersion", "1.0.0", "maxVersion", "1.0.0"));
        }
        rejected(parse(c -> c.put("agents", many)), ErrorCode.CONTRACT_TYPE, "/agents");
        rejected(
                parse(c -> {
                    agent(c).put("minVersion", "2.0.0");
                    agent(c).put("maxVersion", "1.9.9");
                }),
                ErrorCode.CONTRACT_SEMVER,
                "/agents/0");
        accepted(parse(c -> {
            agent(c).put("minVersion", "1.0.0-rc.1");
            agent(c).put("maxVersion", "1.0.0");
        }));
        rejected(parse(c -> agent(c).put("kind", "Codex")), ErrorCode.CONTRACT_TYPE, "/agents/0/kind");
        rejected(parse(c -> agent(c).put("kind", "")), ErrorCode.CONTRACT_TYPE, "/agents/0/kind");
        accepted(parse(c -> agent(c).put("kind", "claude-code.v2_x")));
    }

    @Test
    void inputTypesAndToolsAreKnownDistinctNames() {
        rejected(parse(c -> c.put("inputTypes", List.of("text", "smell"))), ErrorCode.CONTRACT_TYPE, "/inputTypes/1");
        rejected(parse(c -> c.put("inputTypes", List.of("text", "text"))), ErrorCode.CONTRACT_TYPE, "/inputTypes/1");
        rejected(parse(c -> c.put("inputTypes", List.of("Text"))), ErrorCode.CONTRACT_TYPE, "/inputTypes/0");
        accepted(
                parse(c -> c.put("inputTypes", List.of("text", "image", "audio", "video", "file", "structured-data"))));
        accepted(parse(c -> c.put("inputTypes", List.of())));
        rejected(parse(c -> c.put("tools", List.of("root"))), ErrorCode.CONTRACT_TYPE, "/tools/0");
        rejected(parse(c -> c.put("tools", List.of("shell", "shell"))), ErrorCode.CONTRACT_TYPE, "/tools/1");
        assertThat(accepted(parse(c -> c.put(
                                "tools",
                                List.of(
                                        "agent-native",
                                        "filesystem",
                                        "filesystem-read",
                                        "shell",
                                        "network",
                                        "browser"))))
                        .tools())
                .hasSize(6);
    }

    @Test
    void credentialsAreNamesParsedHereAndRefusedAtCheck() {
        SkillContract c = accepted(parse(x -> x.put("credentials", List.of("GITHUB_TOKEN", "aws.profile-1"))));
        assertThat(c.credentials()).containsExactly("GITHUB_TOKEN", "aws.profile-1");
        rejected(parse(x -> x.put("credentials", List.of("a b"))), ErrorCode.CONTRACT_TYPE, "/credentials/0");
        rejected(parse(x -> x.put("credentials", List.of("-x"))), ErrorCode.CONTRACT_TYPE, "/credentials/0");
        rejected(parse(x -> x.put("credentials", List.of("T", "T"))), ErrorCode.CONTRACT_TYPE, "/credentials/1");
    }

    @Test
    void sideEffectsNeedPermissionAndDestinations() {
        rejected(
                parse(c -> c.put("sideEffectClass", "workspace-write")),
                ErrorCode.CONTRACT_SIDE_EFFECT_PERMISSION,
                "/sideEffectClass");
        accepted(parse(c -> {
            c.put("sideEffectClass", "workspace-write");
            c.put("permissionMode", "workspace-write");
        }));
        rejected(
                parse(c -> {
                    c.put("sideEffectClass", "external-write");
                    c.put("permissionMode", "full-access");
                }),
                ErrorCode.CONTRACT_DESTINATION_REQUIRED,
                "/networkDestinations");
        accepted(parse(c -> {
            c.put("sideEffectClass", "external-write");
            c.put("permissionMode", "workspace-write");
            c.put("networkDestinations", List.of("https://api.example.com"));
        }));
        rejected(
                parse(c -> c.put("sideEffectClass", "deletes-everything")),
                ErrorCode.CONTRACT_TYPE,
                "/sideEffectClass");
        rejected(parse(c -> c.put("permissionMode", "root")), ErrorCode.CONTRACT_TYPE, "/permissionMode");
        accepted(parse(c -> c.put("permissionMode", "full-access")));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http://api.example.com",
                "https://user:pw@api.example.com",
                "https://user@api.example.com",
                "https://api.example.com/v1",
                "https://api.example.com?x=1",
                "https://api.example.com#top",
                "https://api.example.com:0",
                "https://api.example.com:70000",
                "https://",
                "https://[fe80::1%25eth0]",
                "ftp://example.com",
                "https://exa mple.com",
                "https://api..example.com"
            })
    void destinationsAreCredentialFreeHttpsOrigins(String destination) {
        rejected(
                parse(c -> c.put("networkDestinations", List.of(destination))),
                ErrorCode.CONTRACT_DESTINATION_INVALID,
                "/networkDestinations/0");
    }

    @Test
    void destinationsAreCanonicalAndDistinct() {
        SkillContract c = accepted(parse(x -> x.put(
                "networkDestinations",
                List.of(
                        "https://Bücher.Example",
                        "https://api.example.com:8443",
                        "https://[::1]:9000",
                        "HTTPS://a.example/"))));
        assertThat(c.networkDestinations())
                .extracting(NetworkDestination::origin)
                .containsExactly(
                        "https://xn--bcher-kva.example",
                        "https://api.example.com:8443",
                        "https://[::1]:9000",
                        "https://a.example");
        rejected(
                parse(x -> x.put("networkDestinations", List.of("https://a.example", "https://A.example:443"))),
                ErrorCode.CONTRACT_DESTINATION_INVALID,
                "/networkDestinations/1");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 65; i++) {
            many.add("https://h" + i + ".example");
        }
        rejected(parse(x -> x.put("networkDestinations", many)), ErrorCode.CONTRACT_TYPE, "/networkDestinations");
    }

    @Test
    void originRules() {
        rejected(
                parse(c -> c.put("origin", new LinkedHashMap<>(Map.of("type", "signed")))),
                ErrorCode.CONTRACT_MISSING_FIELD,
                "/origin");
        assertThat(accepted(parse(c -> c.put("origin", Map.of("type", "signed", "publisher", "alice@example.com"))))
                        .origin()
                        .type())
                .isEqualTo(OriginType.SIGNED);
        assertThat(accepted(parse(c -> c.put("origin", Map.of("type", "local-unsigned"))))
                        .origin()
                        .publisher())
                .isEmpty();
        rejected(parse(c -> child(c, "origin").put("publisher", "")), ErrorCode.CONTRACT_TYPE, "/origin/publisher");
        rejected(
                parse(c -> child(c, "origin").put("publisher", "a\u0000b")),
                ErrorCode.CONTRACT_TYPE,
                "/origin/publisher");
        rejected(parse(c -> child(c, "origin").put("type", "trusted")), ErrorCode.CONTRACT_TYPE, "/origin/type");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ContractVerdict v = parse(c -> {
            c.put("extra", 1);
            c.put("permissionMode", "root");
            c.put("tools", List.of("x"));
            child(c, "identity").put("version", "1");
        });
        assertThat(v.problems())
                .extracting(Diagnostic::location)
                .containsExactlyInAnyOrder("/extra", "/permissionMode", "/tools/0", "/identity/version");
    }

    @Test
    void messagesNeverEchoLargeValues() {
        String huge = "x".repeat(10_000);
        ContractVerdict v = parse(c -> {
            c.put(huge, 1);
            c.put("recordType", "skill-contract");
            child(c, "identity").put("id", huge);
        });
        assertThat(v.problems())
                .allSatisfy(d -> assertThat(d.message().length()).isLessThan(400));
    }
}
