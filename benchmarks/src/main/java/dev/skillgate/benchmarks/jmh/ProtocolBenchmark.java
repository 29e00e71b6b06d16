package dev.skillgate.benchmarks.jmh;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.skillgate.benchmarks.corpus.ProtocolWorkloads;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import dev.skillgate.protocol.Validation;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.json.JsonMapper;

/**
 * The protocol gate's cost over networknt (SPEC §17: the subset gate + networknt adds ≤ 10% over
 * networknt alone), per workload of {@link ProtocolWorkloads}:
 *
 * <ul>
 *   <li>{@code gateAndValidate} — {@link CompiledSchema#checkInvocation}: private copy, size bound,
 *       strict UTF-8 pre-scan, strict exact-number decoding with duplicate/depth/node checks,
 *       networknt validation, issue mapping (the digest is lazy and not included);
 *   <li>{@code networkntSameSchema} — the baseline: a default Jackson 3 {@code readTree} of the same
 *       bytes and {@code Schema.validate} with the <em>same</em> compiled networknt schema;
 *   <li>{@code networkntStock} — the same with stock networknt (draft 2020-12 dialect) compiled from
 *       the same schema text.
 * </ul>
 *
 * <p>The same-schema baseline reaches the package-private {@code CompiledSchema.validatorSchema()}
 * by reflection, once, in setup (the benchmarks run on the class path); nothing reflective is
 * measured.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ProtocolBenchmark {
    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    @Param({"small", "nested", "array60k"})
    public String workload;

    private byte[] input;
    private CompiledSchema compiled;
    private Schema sameSchema;
    private Schema stockSchema;

    @Setup
    public void setUp() throws ReflectiveOperationException {
        ProtocolWorkloads.Workload w = ProtocolWorkloads.byId(workload);
        input = w.input();
        compiled =
                SchemaGate.compile(SchemaRole.INPUT, w.schemaJson()).compiled().orElseThrow();
        sameSchema = validatorSchema(compiled);
        stockSchema = SchemaRegistry.withDialect(Dialects.getDraft202012()).getSchema(PLAIN.readTree(compiled.json()));
        stockSchema.initializeValidators();
        if (!compiled.checkInvocation(input).isValid()
                || !sameSchema.validate(PLAIN.readTree(input)).isEmpty()
                || !stockSchema.validate(PLAIN.readTree(input)).isEmpty()) {
            throw new IllegalStateException(workload + ": every side must accept the input");
        }
    }

    /** {@code CompiledSchema.validatorSchema()}: package-private, for benchmarks and tests. */
    public static Schema validatorSchema(CompiledSchema compiled) throws ReflectiveOperationException {
        Method m = CompiledSchema.class.getDeclaredMethod("validatorSchema");
        m.setAccessible(true);
        return (Schema) m.invoke(compiled);
    }

    @Benchmark
    public Validation<?> gateAndValidate() {
        return compiled.checkInvocation(input);
    }

    @Benchmark
    public Object networkntSameSchema() {
        return sameSchema.validate(PLAIN.readTree(input));
    }

    @Benchmark
    public Object networkntStock() {
        return stockSchema.validate(PLAIN.readTree(input));
    }
}
