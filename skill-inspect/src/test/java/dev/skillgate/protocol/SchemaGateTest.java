package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaGateTest {

    static SchemaCompilation output(String json) {
        return SchemaGate.compile(SchemaRole.OUTPUT, json.replace('\'', '"'));
    }

    static SchemaCompilation input(String json) {
        return SchemaGate.compile(SchemaRole.INPUT, json.replace('\'', '"'));
    }

    static CompiledSchema compiled(SchemaCompilation compilation) {
        assertThat(compilation.diagnostics()).isEmpty();
        assertThat(compilation.isCompiled()).isTrue();
        return compilation.compiled().orElseThrow();
    }

    static Diagnostic onlyProblem(SchemaCompilation compilation) {
        assertThat(compilation.isCompiled()).isFalse();
        assertThat(compilation.compiled()).isEmpty();
        assertThat(compilation.diagnostics()).hasSize(1);
        return compilation.diagnostics().get(0);
    }

    @Test
    void admitsEveryAllowedKeyword() {
        CompiledSchema schema = compiled(input("{'$schema':'https://json-schema.org/draft/2020-12/schema',"
                + "'title':'t','description':'d','default':{},'examples':[{}],"
                + "'type':'object','additionalProperties':false,'required':['s'],"
                + "'properties':{"
                + " 's':{'type':'string','minLength':1,'maxLength':2.0,'enum':['a','bb',null,1]},"
                + " 'n':{'type':'number','minimum':-1.5,'maximum':1e3,'exclusiveMinimum':-2,'exclusiveMaximum':1001},"
                + " 'i':{'type':'integer','const':3},"
                + " 'a':{'type':'array','items':{'type':'boolean'},'minItems':0,'maxItems':4},"
                + " 'u':{'title':'union','anyOf':[{'type':'string'},{'type':'null'}]},"
                + " 'z':{},"
                + " 'o':{'type':'object','properties':{}}}}"));
        assertThat(schema.role()).isEqualTo(SchemaRole.INPUT);
        assertThat(schema.json()).contains("\"maxLength\":2.0").contains("\"maximum\":1E+3");
        assertThat(SchemaGate.allowedKeywords())
                .containsExactlyInAnyOrder(
                        "$schema",
                        "title",
                        "description",
                        "default",
                        "examples",
                        "type",
                        "properties",
                        "required",
                        "additionalProperties",
                        "items",
                        "enum",
                        "const",
                        "minLength",
                        "maxLength",
                        "minItems",
                        "maxItems",
                        "minimum",
                        "maximum",
                        "exclusiveMinimum",
                        "exclusiveMaximum",
                        "anyOf");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "$ref",
                "$defs",
                "definitions",
                "$id",
                "$anchor",
                "$dynamicRef",
                "$comment",
                "$vocabulary",
                "pattern",
                "format",
                "oneOf",
                "allOf",
                "not",
                "if",
                "then",
                "else",
                "patternProperties",
                "dependentSchemas",
                "dependentRequired",
                "prefixItems",
                "contains",
                "minContains",
                "unevaluatedProperties",
                "unevaluatedItems",
                "propertyNames",
                "multipleOf",
                "uniqueItems",
                "minProperties",
                "maxProperties",
                "contentEncoding",
                "nullable",
                "minLenght",
                "x-custom",
                ""
            })
    void rejectsEveryOtherKeywordByNameAndPointer(String keyword) {
        String json = "{'type':'object','properties':{'deep':{'type':'object','properties':{},'" + keyword + "':1}}}";
        Diagnostic problem = onlyProblem(output(json));
        assertThat(problem.code()).isEqualTo(ErrorCode.SCHEMA_KEYWORD_REJECTED);
        assertThat(problem.location())
                .isEqualTo("/properties/deep/" + keyword.replace("~", "~0").replace("/", "~1"));
        if (!keyword.isEmpty()) {
            assertThat(problem.message()).contains(keyword);
        }
    }

    @Test
    void pointersEscapeSlashAndTilde() {
        Diagnostic problem = onlyProblem(output("{'properties':{'a/b~c':{'pattern':'x'}}}"));
        assertThat(problem.location()).isEqualTo("/properties/a~1b~0c/pattern");
    }

    @Test
    void reportsEveryProblemNotJustTheFirst() {
        SchemaCompilation compilation = output("{'pattern':'x','format':'email','properties':{'a':{'$ref':'#'}}}");
        assertThat(compilation.diagnostics())
                .extracting(Diagnostic::location)
                .containsExactly("/pattern", "/format", "/properties/a/$ref");
    }

    @Test
    void caps_problems_at_twenty_with_a_truncation_note() {
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < 50; i++) {
            json.append("'x").append(i).append("':1,");
        }
        json.append("'type':'string'}");
        List<Diagnostic> problems = output(json.toString()).diagnostics();
        assertThat(problems).hasSize(Limits.VALIDATION_ISSUES);
        assertThat(problems.subList(0, 19)).allMatch(d -> d.code() == ErrorCode.SCHEMA_KEYWORD_REJECTED);
        assertThat(problems.get(19).code()).isEqualTo(ErrorCode.SCHEMA_ISSUES_TRUNCATED);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{'type':['string','null']}|SCHEMA_TYPE_INVALID|/type",
                "{'type':'strnig'}|SCHEMA_TYPE_INVALID|/type",
                "{'type':1}|SCHEMA_TYPE_INVALID|/type",
                "{'type':'object'}|SCHEMA_PROPERTIES_REQUIRED|''",
                "{'type':'array'}|SCHEMA_ITEMS_REQUIRED|''",
                "{'properties':{'a':{'type':'array','minItems':1}}}|SCHEMA_ITEMS_REQUIRED|/properties/a",
                "{'additionalProperties':{'type':'string'}}|SCHEMA_KEYWORD_VALUE|/additionalProperties",
                "{'additionalProperties':'no'}|SCHEMA_KEYWORD_VALUE|/additionalProperties",
                "{'type':'array','items':[{}]}|SCHEMA_KEYWORD_VALUE|/items",
                "{'type':'array','items':false}|SCHEMA_BOOLEAN_SCHEMA|/items",
                "{'type':'array','items':true}|SCHEMA_BOOLEAN_SCHEMA|/items",
                "{'properties':{'a':true}}|SCHEMA_BOOLEAN_SCHEMA|/properties/a",
                "{'anyOf':[{},false]}|SCHEMA_BOOLEAN_SCHEMA|/anyOf/1",
                "{'properties':{'a':'string'}}|SCHEMA_KEYWORD_VALUE|/properties/a",
                "{'properties':[]}|SCHEMA_KEYWORD_VALUE|/properties",
                "{'enum':[1,[2]]}|SCHEMA_KEYWORD_VALUE|/enum/1",
                "{'enum':[{'a':1}]}|SCHEMA_KEYWORD_VALUE|/enum/0",
                "{'enum':'a'}|SCHEMA_KEYWORD_VALUE|/enum",
                "{'const':[1]}|SCHEMA_KEYWORD_VALUE|/const",
                "{'const':{}}|SCHEMA_KEYWORD_VALUE|/const",
                "{'required':'a'}|SCHEMA_KEYWORD_VALUE|/required",
                "{'required':['a',1]}|SCHEMA_KEYWORD_VALUE|/required/1",
                "{'required':['a','a']}|SCHEMA_KEYWORD_VALUE|/required/1",
                "{'minLength':-1}|SCHEMA_KEYWORD_VALUE|/minLength",
                "{'minLength':2.5}|SCHEMA_KEYWORD_VALUE|/minLength",
                "{'maxLength':'3'}|SCHEMA_KEYWORD_VALUE|/maxLength",
                "{'maxItems':2147483648}|SCHEMA_KEYWORD_VALUE|/maxItems",
                "{'minItems':1e999999999}|SCHEMA_KEYWORD_VALUE|/minItems",
                "{'minimum':'1'}|SCHEMA_KEYWORD_VALUE|/minimum",
                "{'exclusiveMinimum':true}|SCHEMA_KEYWORD_VALUE|/exclusiveMinimum",
                "{'title':1}|SCHEMA_KEYWORD_VALUE|/title",
                "{'description':null}|SCHEMA_KEYWORD_VALUE|/description",
                "{'examples':{}}|SCHEMA_KEYWORD_VALUE|/examples",
                "{'anyOf':{}}|SCHEMA_KEYWORD_VALUE|/anyOf",
                "{'anyOf':[1,{}]}|SCHEMA_KEYWORD_VALUE|/anyOf/0",
                "{'$schema':'http://json-schema.org/draft-07/schema#'}|SCHEMA_DIALECT|/$schema",
                "{'$schema':'https://json-schema.org/draft/2020-12/schema#'}|SCHEMA_DIALECT|/$schema",
                "{'$schema':1}|SCHEMA_DIALECT|/$schema",
                "{'items':{'$schema':'https://json-schema.org/draft/2020-12/schema'}}|SCHEMA_KEYWORD_REJECTED|/items/$schema",
                "{'type':'string','maximum':5}|SCHEMA_KEYWORD_INAPPLICABLE|/maximum",
                "{'type':'integer','maxLength':5}|SCHEMA_KEYWORD_INAPPLICABLE|/maxLength",
                "{'type':'string','items':{}}|SCHEMA_KEYWORD_INAPPLICABLE|/items",
                "{'type':'array','items':{},'required':['a']}|SCHEMA_KEYWORD_INAPPLICABLE|/required",
                "{'type':'null','additionalProperties':false}|SCHEMA_KEYWORD_INAPPLICABLE|/additionalProperties",
                "{'type':'boolean','minItems':1}|SCHEMA_KEYWORD_INAPPLICABLE|/minItems",
                "{'type':'string','anyOf':[{},{}]}|SCHEMA_ANYOF_SIBLING|/type",
                "{'anyOf':[{},{}],'minimum':1}|SCHEMA_ANYOF_SIBLING|/minimum",
                "{'anyOf':[{},{}],'properties':{}}|SCHEMA_ANYOF_SIBLING|/properties",
                "{'anyOf':[{'type':'string'}]}|SCHEMA_ANYOF_BRANCHES|/anyOf",
                "{'anyOf':[]}|SCHEMA_ANYOF_BRANCHES|/anyOf",
                "{'anyOf':[{},{},{},{},{}]}|SCHEMA_ANYOF_BRANCHES|/anyOf",
                "{'__proto__':{}}|SCHEMA_PROTO_KEY|/__proto__",
                "{'properties':{'__proto__':{}}}|SCHEMA_PROTO_KEY|/properties/__proto__",
                "{'required':['__proto__']}|SCHEMA_PROTO_KEY|/required/0",
                "{'default':{'a':[{'__proto__':1}]}}|SCHEMA_PROTO_KEY|/default/a/0/__proto__",
                "{'examples':[{'__proto__':1}]}|SCHEMA_PROTO_KEY|/examples/0/__proto__",
                "true|SCHEMA_BOOLEAN_SCHEMA|''",
                "false|SCHEMA_BOOLEAN_SCHEMA|''",
                "[]|SCHEMA_KEYWORD_VALUE|''",
                "\"x\"|SCHEMA_KEYWORD_VALUE|''",
            })
    void rejectsWithTheRightCodeAndPointer(String json, ErrorCode code, String pointer) {
        Diagnostic problem = onlyProblem(output(json));
        assertThat(problem.code()).isEqualTo(code);
        assertThat(problem.location()).isEqualTo(pointer);
        assertThat(problem.isError()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{'anyOf':[{'type':'string'},{'type':'integer'}]}",
                "{'anyOf':[{},{},{},{}]}",
                "{'title':'t','description':'d','default':1,'examples':[1],'anyOf':[{},{}]}",
                "{'$schema':'https://json-schema.org/draft/2020-12/schema','anyOf':[{},{}]}",
                "{'minimum':1}",
                "{'enum':[]}",
                "{}",
                "{'additionalProperties':false}",
                "{'type':'integer','minimum':9223372036854775808,'maximum':1e999999999}",
                "{'minLength':2147483647,'maxItems':0}",
                "{'properties':{'constructor':{},'toString':{},'':{}}}",
                "{'default':'__proto__','enum':['__proto__']}",
            })
    void admitsEdgeCasesInsideTheSubset(String json) {
        compiled(output(json));
    }

    @Test
    void anyOfBranchCountBoundaries() {
        assertThat(output("{'anyOf':[{}]}").isCompiled()).isFalse();
        assertThat(output("{'anyOf':[{},{}]}").isCompiled()).isTrue();
        assertThat(output("{'anyOf':[{},{},{},{}]}").isCompiled()).isTrue();
        assertThat(output("{'anyOf':[{},{},{},{},{}]}").isCompiled()).isFalse();
    }

    @Test
    void inputRootMustBeAnExplicitObjectSchema() {
        assertThat(compiled(input("{'type':'object','properties':{}}")).role()).isEqualTo(SchemaRole.INPUT);
        for (String json : List.of(
                "{}",
                "{'properties':{}}",
                "{'type':'string'}",
                "{'anyOf':[{'type':'object','properties':{}},{'type':'object','properties':{}}]}")) {
            Diagnostic problem = onlyProblem(input(json));
            assertThat(problem.code()).as(json).isEqualTo(ErrorCode.SCHEMA_ROOT_NOT_OBJECT);
            assertThat(problem.location()).isEmpty();
        }
        // The rule is for the input root only.
        compiled(output("{'type':'string'}"));
        compiled(input("{'type':'object','properties':{'a':{'type':'string'}}}"));
    }

    @Test
    void depthBoundary() {
        // Schema depth counts JSON containers: {"items":{...}} nests one object per level.
        assertThat(output(nestedItems(31)).isCompiled()).isTrue(); // 32 containers
        Diagnostic problem = onlyProblem(output(nestedItems(32))); // 33 containers
        assertThat(problem.code()).isEqualTo(ErrorCode.SCHEMA_DEPTH);
    }

    static String nestedItems(int levels) {
        return "{'items':".repeat(levels) + "{}" + "}".repeat(levels);
    }

    @Test
    void nodeBoundary() {
        // {"enum":[...]} is 2 nodes plus one per member.
        assertThat(output(enumOf(Limits.JSON_NODES - 2)).isCompiled()).isTrue();
        Diagnostic problem = onlyProblem(output(enumOf(Limits.JSON_NODES - 1)));
        assertThat(problem.code()).isEqualTo(ErrorCode.SCHEMA_NODES);
    }

    static String enumOf(int members) {
        return "{'enum':[" + "0,".repeat(members - 1) + "0]}";
    }

    @Test
    void malformedSchemaTextIsRejectedWithAJsonCode() {
        assertThat(onlyProblem(output("{'type':")).code()).isEqualTo(ErrorCode.JSON_SYNTAX);
        assertThat(onlyProblem(output("{'type':'string','type':'null'}")).code())
                .isEqualTo(ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(onlyProblem(output("{'minimum':NaN}")).code()).isEqualTo(ErrorCode.JSON_NON_FINITE);
        assertThat(onlyProblem(output("{} {}")).code()).isEqualTo(ErrorCode.JSON_TRAILING_DATA);
        assertThat(onlyProblem(SchemaGate.compile(SchemaRole.OUTPUT, "{\"x\":\"" + "a".repeat(70_000) + "\"}"))
                        .code())
                .isEqualTo(ErrorCode.JSON_TOO_LARGE);
    }

    @Test
    void rejectionMessagesQuoteOnlyShortExcerpts() {
        String longKeyword = "k".repeat(5_000);
        Diagnostic problem = onlyProblem(output("{'" + longKeyword + "':1}"));
        assertThat(problem.message()).hasSizeLessThan(Diagnostic.MAX_MESSAGE_LENGTH + 1);
        assertThat(problem.message()).doesNotContain("k".repeat(100));
    }
}
