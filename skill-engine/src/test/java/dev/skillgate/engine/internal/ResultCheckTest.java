package dev.skillgate.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaCompilation;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import dev.skillgate.runner.OutputCheck;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResultCheckTest {
    private static final CompiledSchema SCHEMA = ((SchemaCompilation.Compiled) SchemaGate.compile(
                    SchemaRole.OUTPUT,
                    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"maximum\":1}},"
                            + "\"required\":[\"n\"]}"))
            .schema();

    private static OutputCheck.Result check(String out, int limit) {
        return new ResultCheck(SCHEMA, new OutputLimit(limit)).check(out.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aValidResultIsReportedExactlyWithoutSurroundingWhitespace() {
        assertThat(check(" {\"n\": 1.0}\n", 100)).isEqualTo(OutputCheck.valid("{\"n\": 1.0}"));
    }

    @Test
    void exactNumbersDecideTheBound() {
        OutputCheck.Result r = check("{\"n\":1.0000000000000000001}", 100);
        assertThat(((OutputCheck.Invalid) r).diagnostics())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.OUTPUT_SCHEMA, ErrorCode.VALUE_MAXIMUM);
    }

    @Test
    void notExactlyOneStrictJsonValueIsOutputNotJson() {
        assertThat(((OutputCheck.Invalid) check("{\"n\":1}{\"n\":1}", 100)).diagnostics())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.OUTPUT_NOT_JSON, ErrorCode.JSON_TRAILING_DATA);
        assertThat(((OutputCheck.Invalid) check("{\"n\":1,\"n\":1}", 100)).diagnostics())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.OUTPUT_NOT_JSON, ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(((OutputCheck.Invalid) check("{\"n\":1}", 6)).diagnostics())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.OUTPUT_NOT_JSON, ErrorCode.JSON_TOO_LARGE);
    }

    @Test
    void messagesNeverEchoLongOutput() {
        String secret = "s3cr3t-".repeat(200);
        OutputCheck.Invalid r = (OutputCheck.Invalid) check("{\"n\":\"" + secret + "\"}", 10_000);
        assertThat(r.diagnostics()).allSatisfy(d -> assertThat(d.message()).doesNotContain(secret));
    }
}
