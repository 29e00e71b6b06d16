package dev.skillgate.protocol.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Schema;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class ValidatorsTest {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private static JsonNode tree(String json) {
        return MAPPER.readTree(json.replace('\'', '"'));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{'pattern':'^a$'}",
                "{'format':'email'}",
                "{'$defs':{'a':{}},'$ref':'#/$defs/a'}",
                "{'$ref':'https://example.com/remote.json'}",
                "{'oneOf':[{},{}]}",
                "{'multipleOf':2}",
                "{'unknownKeyword':1}",
                "{'$schema':'http://json-schema.org/draft-07/schema#'}"
            })
    void theValidatorDialectRefusesWhatTheGateRefusesEvenIfTheGateWereBypassed(String json) {
        assertThat(Validators.compile(tree(json))).isEmpty();
    }

    @Test
    void theValidatorDialectCompilesTheSubset() {
        assertThat(Validators.compile(tree("{'$schema':'https://json-schema.org/draft/2020-12/schema','title':'t',"
                        + "'description':'d','default':1,'examples':[1],'type':'object','properties':{'a':{'anyOf':"
                        + "[{'type':'string','minLength':1,'maxLength':2},{'type':'integer','minimum':1,'maximum':2,"
                        + "'exclusiveMinimum':0,'exclusiveMaximum':3}]},'b':{'type':'array','items':{'enum':[1]},"
                        + "'minItems':1,'maxItems':2},'c':{'const':null}},'required':['a'],"
                        + "'additionalProperties':false}")))
                .isPresent();
    }

    /** A four-way anyOf tree {@code depth} levels deep whose leaves all require null. */
    static String anyOfTree(int depth) {
        if (depth == 0) {
            return "{'type':'null'}";
        }
        String child = anyOfTree(depth - 1);
        return "{'anyOf':[" + child + "," + child + "," + child + "," + child + "]}";
    }

    @Test
    void aFailedAnyOfKeepsOneErrorNotOnePerBranch() {
        // Stock networknt keeps all 4^4 = 256 leaf errors per element (it ran a 1 GiB heap out of
        // memory at depth 5 over 4,000 elements); the bounded anyOf keeps one per element.
        Schema schema = Validators.compile(tree("{'type':'array','items':" + anyOfTree(4) + "}"))
                .orElseThrow();
        JsonNode data = tree("[" + "0,".repeat(999) + "0]");
        assertThat(schema.validate(data)).hasSize(1000);
        List<Diagnostic> issues = Validators.validate(schema, data);
        assertThat(issues).hasSize(20);
        assertThat(issues.subList(0, 19)).allMatch(d -> d.code() == ErrorCode.VALUE_ANY_OF);
        assertThat(issues.get(0).location()).isEqualTo("/0");
        assertThat(issues.get(0).message()).contains("4 anyOf branches");
        // A matching element anywhere in the tree is valid.
        assertThat(schema.validate(tree("[null,null]"))).isEmpty();
    }

    @Test
    void nestedAnyOfFailureIsReportedAtTheOuterAnyOfOnly() {
        Schema schema = Validators.compile(tree("{'properties':{'x':{'anyOf':[{'type':'string'},"
                        + "{'type':'object','properties':{'y':{'anyOf':[{'type':'null'},{'type':'boolean'}]}}}]}}}"))
                .orElseThrow();
        List<Diagnostic> issues = Validators.validate(schema, tree("{'x':{'y':1}}"));
        assertThat(issues).singleElement().satisfies(issue -> {
            assertThat(issue.code()).isEqualTo(ErrorCode.VALUE_ANY_OF);
            assertThat(issue.location()).isEqualTo("/x");
        });
    }
}
