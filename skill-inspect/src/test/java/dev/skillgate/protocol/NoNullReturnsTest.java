package dev.skillgate.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.OutputLimit;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Calls every public no-argument method of a sample of each public protocol type (valid and
 * invalid variants) and checks that none returns {@code null} (SPEC §16), and that the exported
 * package's public signatures never mention Jackson or networknt types.
 */
class NoNullReturnsTest {

    private static List<Object> samples() {
        ManifestVerdict.Accepted accepted =
                (ManifestVerdict.Accepted) ManifestParserTest.parse(ManifestParserTest.manifest(""));
        CompiledSchema input = accepted.inputSchema();
        CompiledSchema output = accepted.outputSchema();
        Validation<Invocation> valid = input.checkInvocation("{\"q\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        Validation<Invocation> invalid = input.checkInvocation("{}".getBytes(StandardCharsets.UTF_8));
        Validation<ValidatedResult> result =
                output.checkResult("{\"answer\":\"y\"}".getBytes(StandardCharsets.UTF_8), OutputLimit.DEFAULT);
        List<Object> samples = new ArrayList<>();
        samples.add(accepted);
        samples.add(ManifestParserTest.parse("{}"));
        samples.add(ManifestVerdict.absent());
        samples.add(input);
        samples.add(SchemaGate.compile(SchemaRole.OUTPUT, "{}"));
        samples.add(SchemaGate.compile(SchemaRole.OUTPUT, "{\"pattern\":\"x\"}"));
        samples.add(valid);
        samples.add(invalid);
        samples.add(valid.valueIfValid().orElseThrow());
        samples.add(result);
        samples.add(result.valueIfValid().orElseThrow());
        return samples;
    }

    @Test
    void noPublicMethodReturnsNull() throws Exception {
        int calls = 0;
        for (Object sample : samples()) {
            for (Method method : sample.getClass().getMethods()) {
                if (method.getParameterCount() != 0
                        || Modifier.isStatic(method.getModifiers())
                        || method.getReturnType() == void.class
                        || method.getDeclaringClass() == Object.class) {
                    continue;
                }
                method.setAccessible(true);
                assertThat(method.invoke(sample))
                        .as("%s.%s()", sample.getClass().getSimpleName(), method.getName())
                        .isNotNull();
                calls++;
            }
        }
        assertThat(calls).isGreaterThan(40);
    }

    @Test
    void noJacksonOrNetworkntTypeInThePublicApi() {
        List<Class<?>> types = List.of(
                SchemaGate.class,
                SchemaRole.class,
                SchemaCompilation.class,
                SchemaCompilation.Compiled.class,
                SchemaCompilation.Rejected.class,
                CompiledSchema.class,
                Validation.class,
                Validation.Valid.class,
                Validation.Invalid.class,
                Invocation.class,
                ValidatedResult.class,
                ManifestParser.class,
                ManifestVerdict.class,
                ManifestVerdict.Accepted.class,
                ManifestVerdict.Rejected.class,
                ManifestVerdict.Absent.class);
        for (Class<?> type : types) {
            for (Method method : type.getDeclaredMethods()) {
                if (!Modifier.isPublic(method.getModifiers())) {
                    continue;
                }
                List<String> mentioned = new ArrayList<>();
                mentioned.add(method.getGenericReturnType().getTypeName());
                for (var parameter : method.getGenericParameterTypes()) {
                    mentioned.add(parameter.getTypeName());
                }
                assertThat(mentioned)
                        .as("%s.%s", type.getSimpleName(), method.getName())
                        .noneMatch(name -> name.contains("tools.jackson") || name.contains("com.networknt"));
            }
        }
    }
}
