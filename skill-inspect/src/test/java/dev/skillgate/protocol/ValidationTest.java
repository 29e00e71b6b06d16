package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ValidationTest {

    static final CompiledSchema INPUT = SchemaGateTest.compiled(SchemaGateTest.input("{'type':'object',"
            + "'properties':{"
            + " 'query':{'type':'string','minLength':1,'maxLength':5},"
            + " 'limit':{'type':'integer','minimum':1,'maximum':50},"
            + " 'ratio':{'type':'number','exclusiveMinimum':0,'exclusiveMaximum':1},"
            + " 'mode':{'enum':['fast','slow']},"
            + " 'flag':{'const':true},"
            + " 'tags':{'type':'array','items':{'type':'string'},'minItems':1,'maxItems':3},"
            + " 'id':{'anyOf':[{'type':'string','maxLength':3},{'type':'integer'}]},"
            + " 'nested':{'type':'object','properties':{'a/b':{'type':'object','properties':{"
            + "   'x':{'anyOf':[{'type':'null'},{'type':'object','properties':{'z':{'type':'integer'}},"
            + "     'required':['z']}]}}}},'additionalProperties':false},"
            + " 'free':{}},"
            + "'required':['query']}"));

    static Validation<Invocation> invoke(String json) {
        return INPUT.checkInvocation(json.replace('\'', '"').getBytes(StandardCharsets.UTF_8));
    }

    static List<Diagnostic> issues(String json) {
        Validation<Invocation> outcome = invoke(json);
        assertThat(outcome.isValid()).as(json).isFalse();
        assertThat(outcome.valueIfValid()).isEmpty();
        return outcome.issues();
    }

    static Diagnostic onlyIssue(String json) {
        List<Diagnostic> issues = issues(json);
        assertThat(issues).as(json).hasSize(1);
        return issues.get(0);
    }

    @Test
    void acceptsAValidInvocationAndKeepsItsExactBytes() {
        String json = "{ \"query\" : \"ab\\u00e9\" ,\"limit\":1.0e1, \"extra\":{\"kept\":[1,2]} }\n";
        Validation<Invocation> outcome = invoke(json);
        assertThat(outcome.isValid()).isTrue();
        assertThat(outcome.issues()).isEmpty();
        Invocation invocation = outcome.valueIfValid().orElseThrow();
        assertThat(invocation.text()).isEqualTo(json);
        assertThat(invocation.bytes()).isEqualTo(json.getBytes(StandardCharsets.UTF_8));
        assertThat(invocation.size()).isEqualTo(json.getBytes(StandardCharsets.UTF_8).length);
        assertThat(invocation.toString())
                .doesNotContain("query")
                .contains(invocation.digest().toString());
    }

    @Test
    void digestCoversTheExactBytesReceivedNeverAReserialisation() throws Exception {
        String compact = "{\"query\":\"a\"}";
        String spaced = "{ \"query\": \"a\" }";
        String escaped = "{\"query\":\"\\u0061\"}";
        Sha256Digest compactDigest =
                invoke(compact).valueIfValid().orElseThrow().digest();
        byte[] expected = MessageDigest.getInstance("SHA-256").digest(compact.getBytes(StandardCharsets.UTF_8));
        assertThat(compactDigest.hex()).isEqualTo(HexFormat.of().formatHex(expected));
        assertThat(invoke(spaced).valueIfValid().orElseThrow().digest()).isNotEqualTo(compactDigest);
        assertThat(invoke(escaped).valueIfValid().orElseThrow().digest()).isNotEqualTo(compactDigest);
        // Equal bytes, equal invocations and digests.
        assertThat(invoke(compact).valueIfValid().orElseThrow())
                .isEqualTo(invoke(compact).valueIfValid().orElseThrow());
    }

    @Test
    void checksACopySoCallerMutationCannotChangeWhatWasChecked() {
        byte[] bytes = "{\"query\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
        Invocation invocation = INPUT.checkInvocation(bytes).valueIfValid().orElseThrow();
        bytes[10] = 'X';
        assertThat(invocation.text()).isEqualTo("{\"query\":\"ok\"}");
        invocation.bytes()[0] = 'X';
        assertThat(invocation.text()).isEqualTo("{\"query\":\"ok\"}");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}|VALUE_REQUIRED|''",
                "{'query':''}|VALUE_MIN_LENGTH|/query",
                "{'query':'abcdef'}|VALUE_MAX_LENGTH|/query",
                "{'query':1}|VALUE_TYPE|/query",
                "{'query':'a','limit':'10'}|VALUE_TYPE|/limit",
                "{'query':'a','limit':1.5}|VALUE_TYPE|/limit",
                "{'query':'a','limit':0}|VALUE_MINIMUM|/limit",
                "{'query':'a','limit':51}|VALUE_MAXIMUM|/limit",
                "{'query':'a','ratio':0}|VALUE_EXCLUSIVE_MINIMUM|/ratio",
                "{'query':'a','ratio':1.0}|VALUE_EXCLUSIVE_MAXIMUM|/ratio",
                "{'query':'a','ratio':1e400}|VALUE_EXCLUSIVE_MAXIMUM|/ratio",
                "{'query':'a','mode':'FAST'}|VALUE_ENUM|/mode",
                "{'query':'a','flag':'true'}|VALUE_CONST|/flag",
                "{'query':'a','tags':[]}|VALUE_MIN_ITEMS|/tags",
                "{'query':'a','tags':['a','b','c','d']}|VALUE_MAX_ITEMS|/tags",
                "{'query':'a','tags':['a',2]}|VALUE_TYPE|/tags/1",
                "{'query':'a','tags':'a'}|VALUE_TYPE|/tags",
                "{'query':'a','id':'abcd'}|VALUE_ANY_OF|/id",
                "{'query':'a','id':1.5}|VALUE_ANY_OF|/id",
                "{'query':'a','nested':{'a/b':{'x':{}}}}|VALUE_ANY_OF|/nested/a~1b/x",
                "{'query':'a','nested':{'a/b':{'x':{'z':'1'}}}}|VALUE_ANY_OF|/nested/a~1b/x",
                "{'query':'a','nested':{'other':1}}|VALUE_ADDITIONAL_PROPERTY|/nested/other",
                "{'query':'a','nested':{'~':1}}|VALUE_ADDITIONAL_PROPERTY|/nested/~0",
            })
    void refusesWithAStableCodeAndPointer(String json, ErrorCode code, String pointer) {
        Diagnostic issue = onlyIssue(json);
        assertThat(issue.code()).isEqualTo(code);
        assertThat(issue.location()).isEqualTo(pointer);
        assertThat(issue.isError()).isTrue();
    }

    @Test
    void noCoercionAndOneIsAnInteger() {
        assertThat(invoke("{'query':'a','limit':1.0}").isValid()).isTrue();
        assertThat(invoke("{'query':'a','limit':1e1}").isValid()).isTrue();
        assertThat(invoke("{'query':'a','limit':10.00}").isValid()).isTrue();
        assertThat(onlyIssue("{'query':'a','limit':'1'}").code()).isEqualTo(ErrorCode.VALUE_TYPE);
        assertThat(onlyIssue("{'query':'a','flag':1}").code()).isEqualTo(ErrorCode.VALUE_CONST);
        assertThat(onlyIssue("{'query':'a','tags':'x'}").code()).isEqualTo(ErrorCode.VALUE_TYPE);
        assertThat(onlyIssue("{'query':['a']}").code()).isEqualTo(ErrorCode.VALUE_TYPE);
    }

    @Test
    void lengthsCountCodePointsNotUtf16Units() {
        assertThat(invoke("{'query':'\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00'}")
                        .isValid())
                .isTrue();
        assertThat(onlyIssue("{'query':'\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00\uD83D\uDE00x'}")
                        .code())
                .isEqualTo(ErrorCode.VALUE_MAX_LENGTH);
        // e + combining acute accent is two code points: three accented letters are six.
        assertThat(invoke("{'query':'e\u0301e\u0301e'}").isValid()).isTrue();
        assertThat(onlyIssue("{'query':'e\u0301e\u0301e\u0301'}").code()).isEqualTo(ErrorCode.VALUE_MAX_LENGTH);
    }

    @Test
    void undeclaredPropertiesAreKeptUnlessForbidden() {
        Invocation invocation =
                invoke("{'query':'a','unknown':{'deep':[1]}}").valueIfValid().orElseThrow();
        assertThat(invocation.text()).contains("unknown");
    }

    @Test
    void exactNumbersAtTheBounds() {
        assertThat(issues("{'query':'a','limit':50.0000000000000000001}"))
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.VALUE_TYPE, ErrorCode.VALUE_MAXIMUM);
        assertThat(invoke("{'query':'a','limit':50.0000000000000000000}").isValid())
                .isTrue();
        assertThat(onlyIssue("{'query':'a','ratio':0.99999999999999999999999999999999e1}")
                        .code())
                .isEqualTo(ErrorCode.VALUE_EXCLUSIVE_MAXIMUM);
        assertThat(invoke("{'query':'a','ratio':0.99999999999999999999999999999999}")
                        .isValid())
                .isTrue();
        assertThat(onlyIssue("{'query':'a','limit':123456789012345678901234567890}")
                        .code())
                .isEqualTo(ErrorCode.VALUE_MAXIMUM);
        assertThat(onlyIssue("{'query':'a','limit':1e999999999}").code()).isEqualTo(ErrorCode.VALUE_MAXIMUM);
        assertThat(onlyIssue("{'query':'a','limit':-1e999999999}").code()).isEqualTo(ErrorCode.VALUE_MINIMUM);
    }

    @Test
    void failedAnyOfIsOneIssueAtItsOwnPointer() {
        List<Diagnostic> issues = issues("{'query':'a','id':[],'nested':{'a/b':{'x':[1]}}}");
        assertThat(issues).extracting(Diagnostic::code).containsOnly(ErrorCode.VALUE_ANY_OF);
        assertThat(issues).extracting(Diagnostic::location).containsExactly("/id", "/nested/a~1b/x");
        assertThat(issues.get(0).message()).contains("2 anyOf branches");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "[]|JSON_ROOT_NOT_OBJECT",
                "\"x\"|JSON_ROOT_NOT_OBJECT",
                "null|JSON_ROOT_NOT_OBJECT",
                "1|JSON_ROOT_NOT_OBJECT",
                "{'query':'a'} {}|JSON_TRAILING_DATA",
                "{'query':'a','query':'b'}|JSON_DUPLICATE_KEY",
                "{'query':'a','limit':NaN}|JSON_NON_FINITE",
                "{'query':'\\ud800'}|JSON_LONE_SURROGATE",
                "''|JSON_EMPTY",
                "{'query':|JSON_SYNTAX",
            })
    void strictDecodingFailuresAreOneJsonIssue(String json, ErrorCode code) {
        assertThat(onlyIssue(json).code()).isEqualTo(code);
    }

    @Test
    void bomAndInvalidUtf8AreRefusedBeforeParsing() {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        assertThat(INPUT.checkInvocation(bom).issues())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.JSON_BOM);
        byte[] invalid = {'{', '"', 'q', (byte) 0xC0, (byte) 0xAF, '"', ':', '1', '}'};
        assertThat(INPUT.checkInvocation(invalid).issues())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.JSON_INVALID_UTF8);
    }

    @Test
    void invocationSizeBoundaryIsExact() {
        String atLimit = padded(Limits.INVOCATION_BYTES);
        assertThat(atLimit.getBytes(StandardCharsets.UTF_8)).hasSize(Limits.INVOCATION_BYTES);
        assertThat(INPUT.checkInvocation(atLimit.getBytes(StandardCharsets.UTF_8))
                        .isValid())
                .isTrue();
        Validation<Invocation> over =
                INPUT.checkInvocation(padded(Limits.INVOCATION_BYTES + 1).getBytes(StandardCharsets.UTF_8));
        assertThat(over.issues()).extracting(Diagnostic::code).containsExactly(ErrorCode.JSON_TOO_LARGE);
    }

    /** A valid invocation of exactly {@code size} bytes. */
    static String padded(int size) {
        String head = "{\"query\":\"a\",\"free\":\"";
        String tail = "\"}";
        return head + "x".repeat(size - head.length() - tail.length()) + tail;
    }

    @Test
    void depthAndNodeBoundariesApplyToData() {
        // Root object + "free" → 31 nested arrays = 32 containers.
        assertThat(invoke("{'query':'a','free':" + "[".repeat(31) + "]".repeat(31) + "}")
                        .isValid())
                .isTrue();
        assertThat(onlyIssue("{'query':'a','free':" + "[".repeat(32) + "]".repeat(32) + "}")
                        .code())
                .isEqualTo(ErrorCode.JSON_DEPTH);
        // Root + query + free array = 3 nodes, plus its elements.
        String atLimit = "{'query':'a','free':[" + "0,".repeat(Limits.JSON_NODES - 4) + "0]}";
        assertThat(invoke(atLimit).isValid()).isTrue();
        String over = "{'query':'a','free':[" + "0,".repeat(Limits.JSON_NODES - 3) + "0]}";
        assertThat(onlyIssue(over).code()).isEqualTo(ErrorCode.JSON_NODES);
    }

    @Test
    void atMostTwentyIssuesWithATruncationNote() {
        CompiledSchema strings =
                SchemaGateTest.compiled(SchemaGateTest.output("{'type':'array','items':{'type':'string'}}"));
        Validation<ValidatedResult> twenty = strings.checkResult(
                ("[" + "1,".repeat(19) + "1]").getBytes(StandardCharsets.UTF_8), OutputLimit.DEFAULT);
        assertThat(twenty.issues()).hasSize(20).allMatch(d -> d.code() == ErrorCode.VALUE_TYPE);

        Validation<ValidatedResult> many = strings.checkResult(
                ("[" + "1,".repeat(999) + "1]").getBytes(StandardCharsets.UTF_8), OutputLimit.DEFAULT);
        List<Diagnostic> issues = many.issues();
        assertThat(issues).hasSize(Limits.VALIDATION_ISSUES);
        assertThat(issues.subList(0, 19)).allMatch(d -> d.code() == ErrorCode.VALUE_TYPE);
        assertThat(issues.subList(0, 19)).extracting(Diagnostic::location).startsWith("/0", "/1", "/2");
        assertThat(issues.get(19).code()).isEqualTo(ErrorCode.VALUE_ISSUES_TRUNCATED);
    }

    @Test
    void messagesNeverEchoValues() {
        String secret = "sk-live-" + "Z".repeat(300);
        CompiledSchema closed = SchemaGateTest.compiled(SchemaGateTest.input(
                "{'type':'object','properties':{'a':{'type':'integer','enum':[1]},'b':{'const':'x'},"
                        + "'c':{'type':'string','maxLength':1}},'additionalProperties':false}"));
        String json =
                "{\"a\":\"" + secret + "\",\"b\":\"" + secret + "\",\"c\":\"" + secret + "\",\"" + secret + "\":1}";
        List<Diagnostic> issues =
                closed.checkInvocation(json.getBytes(StandardCharsets.UTF_8)).issues();
        assertThat(issues).hasSizeGreaterThanOrEqualTo(4);
        for (Diagnostic issue : issues) {
            assertThat(issue.message()).doesNotContain("ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ");
            assertThat(issue.toString())
                    .hasSizeLessThan(Diagnostic.MAX_MESSAGE_LENGTH + Diagnostic.MAX_LOCATION_LENGTH + 60);
        }
    }

    @Test
    void resultSizeBoundaryFollowsTheManifestLimit() {
        CompiledSchema anything = SchemaGateTest.compiled(SchemaGateTest.output("{'type':'string'}"));
        String exactly = "\"" + "r".repeat(98) + "\"";
        assertThat(anything.checkResult(exactly.getBytes(StandardCharsets.UTF_8), new OutputLimit(100))
                        .isValid())
                .isTrue();
        Validation<ValidatedResult> over =
                anything.checkResult((exactly + "\n").getBytes(StandardCharsets.UTF_8), new OutputLimit(100));
        assertThat(over.issues()).extracting(Diagnostic::code).containsExactly(ErrorCode.JSON_TOO_LARGE);
        // A trailing newline from console.log is whitespace, not a second value.
        ValidatedResult result = anything.checkResult(
                        (exactly + "\n").getBytes(StandardCharsets.UTF_8), new OutputLimit(101))
                .valueIfValid()
                .orElseThrow();
        assertThat(result.text()).endsWith("\n");
        assertThat(result.toString()).doesNotContain("r");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}{\"a\":2}", "1 2", "\"a\"\n\"b\"", "[1]\n{"})
    void aSecondResultValueIsRefused(String stdout) {
        CompiledSchema anything = SchemaGateTest.compiled(SchemaGateTest.output("{}"));
        assertThat(anything.checkResult(stdout.getBytes(StandardCharsets.UTF_8), OutputLimit.DEFAULT)
                        .issues())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.JSON_TRAILING_DATA);
    }

    @Test
    void rolesAreNotInterchangeable() {
        CompiledSchema output = SchemaGateTest.compiled(SchemaGateTest.output("{}"));
        assertThatThrownBy(() -> output.checkInvocation(new byte[] {'{', '}'}))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> INPUT.checkResult(new byte[] {'{', '}'}, OutputLimit.DEFAULT))
                .isInstanceOf(IllegalStateException.class);
    }
}
