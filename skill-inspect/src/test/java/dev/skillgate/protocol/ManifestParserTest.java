package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.EntrypointKind;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Severity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ManifestParserTest {

    static final String INPUT = "{'type':'object','properties':{'q':{'type':'string'}},'required':['q']}";
    static final String OUTPUT = "{'type':'object','properties':{'answer':{'type':'string'}}}";

    /** A valid manifest with {@code extra} spliced in before the closing brace (e.g. ",'timeoutMs':5000"). */
    static String manifest(String extra) {
        return ("{'schemaVersion':1,'entrypoint':'scripts/run.mjs','files':['scripts/run.mjs','lib/util.cjs'],"
                        + "'inputSchema':" + INPUT + ",'outputSchema':" + OUTPUT + extra + "}")
                .replace('\'', '"');
    }

    static ManifestVerdict parse(String json) {
        return ManifestParser.parse(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    static ManifestVerdict.Accepted accepted(String json) {
        ManifestVerdict verdict = parse(json);
        assertThat(verdict.reasons()).isEmpty();
        assertThat(verdict).isInstanceOf(ManifestVerdict.Accepted.class);
        assertThat(verdict.executionAvailable()).isTrue();
        return (ManifestVerdict.Accepted) verdict;
    }

    static List<Diagnostic> rejected(String json) {
        ManifestVerdict verdict = parse(json);
        assertThat(verdict).as(json).isInstanceOf(ManifestVerdict.Rejected.class);
        assertThat(verdict.executionAvailable()).isFalse();
        assertThat(verdict.reasons()).isNotEmpty().allMatch(Diagnostic::isError);
        return verdict.reasons();
    }

    static Diagnostic onlyReason(String json) {
        List<Diagnostic> reasons = rejected(json);
        assertThat(reasons).as(json).hasSize(1);
        return reasons.get(0);
    }

    @Test
    void parsesAValidManifestWithDefaults() {
        ManifestVerdict.Accepted accepted = accepted(manifest(""));
        ExecutionManifest manifest = accepted.manifest();
        assertThat(manifest.schemaVersion()).isEqualTo(1);
        assertThat(manifest.entrypoint()).isEqualTo(PortablePath.of("scripts/run.mjs"));
        assertThat(manifest.entrypointKind()).isEqualTo(EntrypointKind.ES_MODULE);
        assertThat(manifest.files())
                .containsExactly(PortablePath.of("scripts/run.mjs"), PortablePath.of("lib/util.cjs"));
        assertThat(manifest.timeout().millis()).isEqualTo(60_000);
        assertThat(manifest.maxOutputBytes().bytes()).isEqualTo(65_536);
        assertThat(manifest.inputSchemaJson()).isEqualTo(accepted.inputSchema().json());
        assertThat(manifest.inputSchemaJson()).contains("\"required\":[\"q\"]");
        assertThat(accepted.inputSchema().role()).isEqualTo(SchemaRole.INPUT);
        assertThat(accepted.outputSchema().role()).isEqualTo(SchemaRole.OUTPUT);
        // The compiled schemas are usable as they are.
        assertThat(accepted.inputSchema()
                        .checkInvocation("{\"q\":\"x\"}".getBytes(StandardCharsets.UTF_8))
                        .isValid())
                .isTrue();
        assertThat(accepted.outputSchema()
                        .checkResult("{\"answer\":1}".getBytes(StandardCharsets.UTF_8), manifest.maxOutputBytes())
                        .isValid())
                .isFalse();
    }

    @Test
    void commonJsEntrypointsAndExplicitLimits() {
        ExecutionManifest manifest = accepted(manifest(",'timeoutMs':1e3,'maxOutputBytes':262144.0")
                        .replace("\"entrypoint\":\"scripts/run.mjs\"", "\"entrypoint\":\"lib/util.cjs\""))
                .manifest();
        assertThat(manifest.entrypointKind()).isEqualTo(EntrypointKind.COMMONJS);
        assertThat(manifest.timeout().millis()).isEqualTo(1_000);
        assertThat(manifest.maxOutputBytes().bytes()).isEqualTo(262_144);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "timeoutMs|999|LIMIT_OUT_OF_RANGE",
                "timeoutMs|1000|",
                "timeoutMs|120000|",
                "timeoutMs|120001|LIMIT_OUT_OF_RANGE",
                "timeoutMs|0|LIMIT_OUT_OF_RANGE",
                "timeoutMs|-5000|LIMIT_OUT_OF_RANGE",
                "timeoutMs|1e30|LIMIT_OUT_OF_RANGE",
                "timeoutMs|1000.5|MANIFEST_TYPE",
                "timeoutMs|\"5000\"|MANIFEST_TYPE",
                "timeoutMs|null|MANIFEST_TYPE",
                "maxOutputBytes|0|LIMIT_OUT_OF_RANGE",
                "maxOutputBytes|1|",
                "maxOutputBytes|262144|",
                "maxOutputBytes|262145|LIMIT_OUT_OF_RANGE",
                "maxOutputBytes|true|MANIFEST_TYPE",
            })
    void limitRangesAreExactAndNeverClamped(String field, String value, ErrorCode code) {
        String json = manifest(",'" + field + "':" + value);
        if (code == null) {
            accepted(json);
        } else {
            Diagnostic reason = onlyReason(json);
            assertThat(reason.code()).isEqualTo(code);
            assertThat(reason.location()).isEqualTo("/" + field);
        }
    }

    @Test
    void manifestSizeBoundaryIsExact() {
        String base = manifest("");
        int padding = Limits.MANIFEST_BYTES - base.length();
        String atLimit = base.substring(0, base.length() - 1) + " ".repeat(padding) + "}";
        assertThat(atLimit.getBytes(StandardCharsets.UTF_8)).hasSize(Limits.MANIFEST_BYTES);
        accepted(atLimit);
        String over = base.substring(0, base.length() - 1) + " ".repeat(padding + 1) + "}";
        Diagnostic reason = onlyReason(over);
        assertThat(reason.code()).isEqualTo(ErrorCode.MANIFEST_TOO_LARGE);
    }

    @Test
    void manifestDepthAndNodeBoundaries() {
        // Manifest root (1) + inputSchema (2) + properties (3) + q (4), then items objects.
        String deep = manifest("").replace("'q':{'type':'string'}".replace('\'', '"'), "\"q\":" + items(28));
        accepted(deep);
        String tooDeep = manifest("").replace("'q':{'type':'string'}".replace('\'', '"'), "\"q\":" + items(29));
        assertThat(onlyReason(tooDeep).code()).isEqualTo(ErrorCode.MANIFEST_DEPTH);

        int base = countNodes();
        String enumAtLimit =
                manifest("").replaceFirst("\"type\":\"string\"", "\"enum\":[" + zeros(Limits.JSON_NODES - base) + "]");
        accepted(enumAtLimit);
        String enumOver = manifest("")
                .replaceFirst("\"type\":\"string\"", "\"enum\":[" + zeros(Limits.JSON_NODES - base + 1) + "]");
        assertThat(onlyReason(enumOver).code()).isEqualTo(ErrorCode.MANIFEST_NODES);
    }

    /** Nodes of the base manifest once {"type":"string"} becomes {"enum":[]} (same count: string → array). */
    private static int countNodes() {
        // root, schemaVersion, entrypoint, files[2] (3), inputSchema{type, properties{q{enum[]}}, required[q]}
        // (1 + 1 + 1 + 1 + 1 + 1 + 1 = 7), outputSchema{type, properties{answer{type}}} (5).
        return 1 + 1 + 1 + 3 + 7 + 5;
    }

    private static String items(int levels) {
        return "{\"type\":\"array\",\"items\":".repeat(levels) + "{}" + "}".repeat(levels);
    }

    private static String zeros(int count) {
        return "0,".repeat(count - 1) + "0";
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "'{\"schemaVersion\":1,\"schemaVersion\":1}'|MANIFEST_DUPLICATE_KEY|/schemaVersion",
                "[]|MANIFEST_TYPE|''",
                "'\"x\"'|MANIFEST_TYPE|''",
                "'{'|MANIFEST_SYNTAX|''",
                "'{} {}'|MANIFEST_SYNTAX|''",
                "'{\"schemaVersion\":NaN}'|MANIFEST_SYNTAX|''",
                "''|MANIFEST_SYNTAX|''",
                "'{\"schemaVersion\":2}'|MANIFEST_VERSION|/schemaVersion",
                "'{\"schemaVersion\":0}'|MANIFEST_VERSION|/schemaVersion",
                "'{\"schemaVersion\":1.5}'|MANIFEST_VERSION|/schemaVersion",
                "'{\"schemaVersion\":\"1\"}'|MANIFEST_TYPE|/schemaVersion",
                "'{\"entrypoint\":\"a.mjs\"}'|MANIFEST_MISSING_FIELD|/schemaVersion",
            })
    void refusesMalformedDocumentsAndVersions(String json, ErrorCode code, String pointer) {
        Diagnostic reason = onlyReason(json);
        assertThat(reason.code()).isEqualTo(code);
        assertThat(reason.location()).isEqualTo(pointer);
    }

    @Test
    void anUnknownVersionStopsTheParseBeforeOtherRules() {
        Diagnostic reason = onlyReason(manifest(",'unknown':1").replace("\"schemaVersion\":1", "\"schemaVersion\":2"));
        assertThat(reason.code()).isEqualTo(ErrorCode.MANIFEST_VERSION);
    }

    @Test
    void versionOneAsADecimalIsVersionOne() {
        accepted(manifest("").replace("\"schemaVersion\":1", "\"schemaVersion\":1.0"));
    }

    @Test
    void invalidUtf8AndBomAreSyntaxErrors() {
        byte[] valid = manifest("").getBytes(StandardCharsets.UTF_8);
        byte[] bom = new byte[valid.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(valid, 0, bom, 3, valid.length);
        assertThat(ManifestParser.parse(bom).reasons())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.MANIFEST_SYNTAX);
        byte[] broken = valid.clone();
        broken[valid.length - 3] = (byte) 0xC0;
        assertThat(ManifestParser.parse(broken).reasons())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.MANIFEST_SYNTAX);
    }

    @ParameterizedTest
    @ValueSource(strings = {"scripts/run.js", "scripts/run.ts", "scripts/run.py", "scripts/run.sh", "run", "run.MJS"})
    void otherEntrypointsGetAnUnsupportedRuntimeDiagnostic(String entrypoint) {
        String json = manifest("")
                .replace("\"entrypoint\":\"scripts/run.mjs\"", "\"entrypoint\":\"" + entrypoint + "\"")
                .replace("\"files\":[\"scripts/run.mjs\"", "\"files\":[\"" + entrypoint + "\"");
        Diagnostic reason = onlyReason(json);
        assertThat(reason.code()).isEqualTo(ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME);
        assertThat(reason.location()).isEqualTo("/entrypoint");
        assertThat(reason.message()).contains("not a .mjs or .cjs file");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "'\"entrypoint\":\"scripts/run.mjs\"'|'\"entrypoint\":\"other.mjs\"'|MANIFEST_ENTRYPOINT_NOT_LISTED|/entrypoint",
                "'\"entrypoint\":\"scripts/run.mjs\"'|'\"entrypoint\":\"../run.mjs\"'|PATH_TRAVERSAL|/entrypoint",
                "'\"entrypoint\":\"scripts/run.mjs\"'|'\"entrypoint\":\"/abs/run.mjs\"'|PATH_ABSOLUTE|/entrypoint",
                "'\"entrypoint\":\"scripts/run.mjs\"'|'\"entrypoint\":7'|MANIFEST_TYPE|/entrypoint",
                "'\"entrypoint\":\"scripts/run.mjs\",'|''|MANIFEST_MISSING_FIELD|/entrypoint",
                "'\"lib/util.cjs\"'|'\"lib\\\\util.cjs\"'|PATH_BACKSLASH|/files/1",
                "'\"lib/util.cjs\"'|'\"lib//util.cjs\"'|PATH_EMPTY_SEGMENT|/files/1",
                "'\"lib/util.cjs\"'|'\"-rf.cjs\"'|PATH_LEADING_DASH|/files/1",
                "'\"lib/util.cjs\"'|'\"lib/\\u0000.cjs\"'|PATH_CONTROL_CHAR|/files/1",
                "'\"lib/util.cjs\"'|'\"\"'|PATH_EMPTY|/files/1",
                "'\"lib/util.cjs\"'|'\"Scripts/Run.mjs\"'|MANIFEST_FILE_DUPLICATE|/files/1",
                "'\"lib/util.cjs\"'|'\"scripts/run.mjs\"'|MANIFEST_FILE_DUPLICATE|/files/1",
                "'\"lib/util.cjs\"'|'3'|MANIFEST_TYPE|/files/1",
                "'\"files\":[\"scripts/run.mjs\",\"lib/util.cjs\"]'|'\"files\":\"scripts/run.mjs\"'|MANIFEST_TYPE|/files",
                "'\"schemaVersion\":1,'|'\"schemaVersion\":1,\"__proto__\":{},'|MANIFEST_PROTO_KEY|/__proto__",
                "'\"schemaVersion\":1,'|'\"schemaVersion\":1,\"timeout\":5,'|MANIFEST_UNKNOWN_FIELD|/timeout",
            })
    void refusesBadFieldsWithTheirPointer(String from, String to, ErrorCode code, String pointer) {
        Diagnostic reason = onlyReason(manifest("").replace(from, to));
        assertThat(reason.code()).isEqualTo(code);
        assertThat(reason.location()).isEqualTo(pointer);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "inputSchema|'\"object\"'",
                "inputSchema|'[]'",
                "inputSchema|null",
                "inputSchema|1",
                "outputSchema|'\"x\"'",
                "outputSchema|null",
            })
    void aSchemaFieldThatIsNotAnObjectIsTheManifestsWrongType(String field, String value) {
        String json = "{'schemaVersion':1,'entrypoint':'scripts/run.mjs','files':['scripts/run.mjs'],"
                + "'inputSchema':" + (field.equals("inputSchema") ? value : INPUT) + ",'outputSchema':"
                + (field.equals("outputSchema") ? value : OUTPUT) + "}";
        Diagnostic reason = onlyReason(json.replace('\'', '"'));
        assertThat(reason.code()).isEqualTo(ErrorCode.MANIFEST_TYPE);
        assertThat(reason.location()).isEqualTo("/" + field);
    }

    @Test
    void filesCountBoundaries() {
        assertThat(onlyReason(withFiles(0)).code()).isEqualTo(ErrorCode.MANIFEST_FILES_COUNT);
        accepted(withFiles(1));
        accepted(withFiles(Limits.DECLARED_FILES));
        Diagnostic over = onlyReason(withFiles(Limits.DECLARED_FILES + 1));
        assertThat(over.code()).isEqualTo(ErrorCode.MANIFEST_FILES_COUNT);
        assertThat(over.location()).isEqualTo("/files");
    }

    /** A manifest whose files are run.mjs plus count-1 others (or none at all). */
    private static String withFiles(int count) {
        StringBuilder files = new StringBuilder();
        for (int i = 0; i < count; i++) {
            files.append(i == 0 ? "" : ",").append(i == 0 ? "\"scripts/run.mjs\"" : "\"f" + i + ".txt\"");
        }
        return manifest("").replace("[\"scripts/run.mjs\",\"lib/util.cjs\"]", "[" + files + "]");
    }

    @Test
    void missingFieldsAreEachReported() {
        List<Diagnostic> reasons = rejected("{'schemaVersion':1}");
        assertThat(reasons).extracting(Diagnostic::code).containsOnly(ErrorCode.MANIFEST_MISSING_FIELD);
        assertThat(reasons)
                .extracting(Diagnostic::location)
                .containsExactlyInAnyOrder("/entrypoint", "/files", "/inputSchema", "/outputSchema");
    }

    @Test
    void unknownFieldsAreListedThenSummarised() {
        StringBuilder extra = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            extra.append(",'x").append(i).append("':").append(i);
        }
        List<Diagnostic> reasons = rejected(manifest(extra.toString()));
        assertThat(reasons).hasSize(6).allMatch(d -> d.code() == ErrorCode.MANIFEST_UNKNOWN_FIELD);
        assertThat(reasons.get(5).message()).contains("35 more");
    }

    @Test
    void schemaProblemsCarryPointersIntoTheManifest() {
        String json = manifest("")
                .replace("{\"q\":{\"type\":\"string\"}}", "{\"q\":{\"type\":\"string\",\"pattern\":\"^a+$\"}}")
                .replace("\"answer\":{\"type\":\"string\"}", "\"answer\":{\"format\":\"email\"}");
        List<Diagnostic> reasons = rejected(json);
        assertThat(reasons)
                .extracting(Diagnostic::code, Diagnostic::location)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                ErrorCode.SCHEMA_KEYWORD_REJECTED, "/inputSchema/properties/q/pattern"),
                        org.assertj.core.groups.Tuple.tuple(
                                ErrorCode.SCHEMA_KEYWORD_REJECTED, "/outputSchema/properties/answer/format"));
    }

    @Test
    void inputSchemaRootMustBeAnObjectSchemaButOutputNeedNot() {
        Diagnostic reason = onlyReason(manifest("")
                .replace("\"inputSchema\":{\"type\":\"object\"", "\"inputSchema\":{\"type\":\"object\",\"title\":\"x\"")
                .replace("\"inputSchema\":{\"type\":\"object\",\"title\":\"x\",", "\"inputSchema\":{\"title\":\"x\","));
        assertThat(reason.code()).isEqualTo(ErrorCode.SCHEMA_ROOT_NOT_OBJECT);
        assertThat(reason.location()).isEqualTo("/inputSchema");
        accepted(manifest("")
                .replace(
                        "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\"}}}",
                        "\"outputSchema\":{\"type\":\"string\"}"));
        assertThat(onlyReason(manifest("")
                                .replace(
                                        "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\"}}}",
                                        "\"outputSchema\":true"))
                        .code())
                .isEqualTo(ErrorCode.SCHEMA_BOOLEAN_SCHEMA);
    }

    @Test
    void collectsEveryProblemAtOnce() {
        String json = "{'schemaVersion':1,'entrypoint':'run.py','files':[],'inputSchema':{'type':'string'},"
                + "'outputSchema':{'$ref':'#'},'timeoutMs':5,'maxOutputBytes':-1,'extra':1}";
        assertThat(rejected(json))
                .extracting(Diagnostic::code)
                .containsExactly(
                        ErrorCode.MANIFEST_UNKNOWN_FIELD,
                        ErrorCode.MANIFEST_UNSUPPORTED_RUNTIME,
                        ErrorCode.MANIFEST_FILES_COUNT,
                        ErrorCode.SCHEMA_ROOT_NOT_OBJECT,
                        ErrorCode.SCHEMA_KEYWORD_REJECTED,
                        ErrorCode.LIMIT_OUT_OF_RANGE,
                        ErrorCode.LIMIT_OUT_OF_RANGE);
    }

    @Test
    void absenceIsPromptOnlyWithAReason() {
        ManifestVerdict absent = ManifestVerdict.absent();
        assertThat(absent.executionAvailable()).isFalse();
        assertThat(absent.reasons()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.MANIFEST_ABSENT);
            assertThat(d.severity()).isEqualTo(Severity.INFO);
        });
    }

    @Test
    void callerBytesAreNotKept() {
        byte[] bytes = manifest("").getBytes(StandardCharsets.UTF_8);
        ManifestVerdict.Accepted accepted = (ManifestVerdict.Accepted) ManifestParser.parse(bytes);
        java.util.Arrays.fill(bytes, (byte) ' ');
        assertThat(accepted.manifest().inputSchemaJson()).contains("\"q\"");
    }
}
