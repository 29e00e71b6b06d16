package dev.skillgate.protocol;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import dev.skillgate.protocol.internal.SubsetGate;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures the protocol's own overhead: {@link CompiledSchema#checkInvocation} (copy, bounds, BOM and
 * strict UTF-8 scan, strict decoding with exact numbers, duplicate and depth/node checks, networknt
 * validation, issue mapping) against networknt alone on the same compiled schema (a default Jackson 3
 * {@code readTree} of the same bytes, then {@code Schema.validate}), and against stock networknt
 * (its own 2020-12 dialect and anyOf) compiled from the same gate-admitted tree. Not a unit test;
 * run by hand:
 *
 * <pre>
 * mvn -B -o -q -pl skill-model,skill-inspect test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
 * java -cp skill-inspect/target/test-classes:skill-inspect/target/classes:$(cat skill-inspect/target/test-classpath.txt) \
 *     dev.skillgate.protocol.ProtocolValidationBench [seconds-per-workload]
 * </pre>
 *
 * <p>Method: per workload, a warm-up of both sides, then rounds that alternate A and B (the order
 * flips every round) over a fixed iteration count each, timed with {@link System#nanoTime()}; the
 * figure reported is the median over rounds of ns/op and of the per-round ratio A/B. The invocation
 * digest (SHA-256) is excluded from A because it is computed lazily, on first use; its cost is
 * reported separately.
 */
public final class ProtocolValidationBench {
    private static final JsonMapper PLAIN = JsonMapper.builder().build();
    private static final SchemaRegistry STOCK = SchemaRegistry.withDialect(Dialects.getDraft202012());
    private static volatile long sink;

    private ProtocolValidationBench() {}

    record Workload(String name, CompiledSchema schema, Schema stock, byte[] input) {}

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 20;
        System.out.printf(
                Locale.ROOT,
                "java %s, %s, %d CPUs; %.0f s per workload%n",
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"),
                Runtime.getRuntime().availableProcessors(),
                seconds);
        List<Workload> workloads = List.of(smallObject(), nestedFiftyProperties(), sixtyKibArray());
        for (Workload workload : workloads) {
            if (!workload.schema().checkInvocation(workload.input()).isValid()) {
                throw new IllegalStateException(workload.name() + ": input must be valid");
            }
            if (!workload.schema()
                    .validatorSchema()
                    .validate(PLAIN.readTree(workload.input()))
                    .isEmpty()) {
                throw new IllegalStateException(workload.name() + ": baseline disagrees");
            }
            if (!workload.stock().validate(PLAIN.readTree(workload.input())).isEmpty()) {
                throw new IllegalStateException(workload.name() + ": stock networknt disagrees");
            }
        }
        System.out.println("| workload | input bytes | gate + validation (A) | networknt alone, same schema (B)"
                + " | A/B median | A/B p25–p75 | stock networknt (C) | A/C median |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Workload workload : workloads) {
            run(workload, seconds);
        }
        digestCost(workloads.get(2));
    }

    private static void run(Workload workload, double seconds) {
        CompiledSchema compiled = workload.schema();
        Schema schema = compiled.validatorSchema();
        byte[] input = workload.input();
        // Size one round at about 10 ms of A: short alternations keep A and B under the same load.
        int iterations = 1;
        while (true) {
            long t = timeA(compiled, input, iterations);
            if (t > 10_000_000L) {
                break;
            }
            iterations *= 2;
        }
        long warmEnd = System.nanoTime() + (long) (seconds * 0.25e9);
        while (System.nanoTime() < warmEnd) {
            timeA(compiled, input, iterations);
            timeB(schema, input, iterations);
            timeB(workload.stock(), input, iterations);
        }
        List<Double> a = new ArrayList<>();
        List<Double> b = new ArrayList<>();
        List<Double> c = new ArrayList<>();
        List<Double> ratio = new ArrayList<>();
        List<Double> ratioStock = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 0.75e9);
        int round = 0;
        while (System.nanoTime() < end || round < 10) {
            long ta;
            long tb;
            long tc;
            if (round % 2 == 0) {
                ta = timeA(compiled, input, iterations);
                tb = timeB(schema, input, iterations);
                tc = timeB(workload.stock(), input, iterations);
            } else {
                tc = timeB(workload.stock(), input, iterations);
                tb = timeB(schema, input, iterations);
                ta = timeA(compiled, input, iterations);
            }
            a.add((double) ta / iterations);
            b.add((double) tb / iterations);
            c.add((double) tc / iterations);
            ratio.add((double) ta / tb);
            ratioStock.add((double) ta / tc);
            round++;
        }
        System.out.printf(
                Locale.ROOT,
                "| %s | %,d | %s | %s | %.3f | %.3f–%.3f | %s | %.3f |%n",
                workload.name(),
                input.length,
                format(percentile(a, 50)),
                format(percentile(b, 50)),
                percentile(ratio, 50),
                percentile(ratio, 25),
                percentile(ratio, 75),
                format(percentile(c, 50)),
                percentile(ratioStock, 50));
    }

    private static long timeA(CompiledSchema compiled, byte[] input, int iterations) {
        long start = System.nanoTime();
        long acc = 0;
        for (int i = 0; i < iterations; i++) {
            acc += compiled.checkInvocation(input).isValid() ? 1 : 0;
        }
        long elapsed = System.nanoTime() - start;
        sink += acc;
        return elapsed;
    }

    private static long timeB(Schema schema, byte[] input, int iterations) {
        long start = System.nanoTime();
        long acc = 0;
        for (int i = 0; i < iterations; i++) {
            acc += schema.validate(PLAIN.readTree(input)).isEmpty() ? 1 : 0;
        }
        long elapsed = System.nanoTime() - start;
        sink += acc;
        return elapsed;
    }

    private static void digestCost(Workload workload) {
        byte[] input = workload.input();
        for (int i = 0; i < 2_000; i++) {
            sink += workload.schema()
                    .checkInvocation(input)
                    .valueIfValid()
                    .orElseThrow()
                    .digest()
                    .hex()
                    .length();
        }
        int n = 2_000;
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += workload.schema()
                    .checkInvocation(input)
                    .valueIfValid()
                    .orElseThrow()
                    .digest()
                    .hex()
                    .length();
        }
        double withDigest = (System.nanoTime() - start) / (double) n;
        System.out.printf(
                Locale.ROOT,
                "%nInvocation digest included (%s, %,d bytes): %s per checkInvocation + digest()%n",
                workload.name(),
                input.length,
                format(withDigest));
    }

    private static String format(double nanos) {
        return nanos >= 1_000
                ? String.format(Locale.ROOT, "%.1f µs", nanos / 1_000)
                : String.format(Locale.ROOT, "%.0f ns", nanos);
    }

    private static double percentile(List<Double> values, int p) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int index = (int) Math.round((p / 100.0) * (sorted.length - 1));
        return sorted[index];
    }

    // --- workloads --------------------------------------------------------------------------------

    static Workload smallObject() {
        CompiledSchema schema = compile("{\"type\":\"object\",\"properties\":{"
                + "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},"
                + "\"mode\":{\"enum\":[\"fast\",\"thorough\"]},"
                + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":8},"
                + "\"id\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}},"
                + "\"required\":[\"query\"],\"additionalProperties\":false}");
        byte[] input =
                "{\"query\":\"weather in Lisbon\",\"limit\":10,\"mode\":\"fast\",\"tags\":[\"a\",\"b\"],\"id\":42}"
                        .getBytes(StandardCharsets.UTF_8);
        return workload("small object (5 properties)", schema, input);
    }

    static Workload nestedFiftyProperties() {
        StringBuilder schema = new StringBuilder("{\"type\":\"object\",\"properties\":{");
        StringBuilder input = new StringBuilder("{");
        for (int i = 0; i < 50; i++) {
            String sep = i == 0 ? "" : ",";
            switch (i % 5) {
                case 0 -> {
                    schema.append(sep).append("\"s").append(i).append("\":{\"type\":\"string\",\"maxLength\":64}");
                    input.append(sep)
                            .append("\"s")
                            .append(i)
                            .append("\":\"value number ")
                            .append(i)
                            .append('"');
                }
                case 1 -> {
                    schema.append(sep)
                            .append("\"n")
                            .append(i)
                            .append("\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1e6}");
                    input.append(sep)
                            .append("\"n")
                            .append(i)
                            .append("\":")
                            .append(i)
                            .append(".25");
                }
                case 2 -> {
                    schema.append(sep).append("\"b").append(i).append("\":{\"type\":\"boolean\"}");
                    input.append(sep).append("\"b").append(i).append("\":true");
                }
                case 3 -> {
                    schema.append(sep)
                            .append("\"o")
                            .append(i)
                            .append(
                                    "\":{\"type\":\"object\",\"properties\":{"
                                            + "\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"},"
                                            + "\"label\":{\"type\":\"string\"}},\"required\":[\"x\",\"y\"],\"additionalProperties\":false}");
                    input.append(sep)
                            .append("\"o")
                            .append(i)
                            .append("\":{\"x\":")
                            .append(i)
                            .append(",\"y\":-")
                            .append(i)
                            .append(",\"label\":\"point\"}");
                }
                default -> {
                    schema.append(sep)
                            .append("\"a")
                            .append(i)
                            .append(
                                    "\":{\"type\":\"array\",\"items\":{\"enum\":[\"red\",\"green\",\"blue\"]},\"maxItems\":10}");
                    input.append(sep).append("\"a").append(i).append("\":[\"red\",\"blue\",\"green\"]");
                }
            }
        }
        schema.append("},\"additionalProperties\":false}");
        input.append('}');
        return workload(
                "nested object (50 properties)",
                compile(schema.toString()),
                input.toString().getBytes(StandardCharsets.UTF_8));
    }

    static Workload sixtyKibArray() {
        CompiledSchema schema = compile("{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\",\"maxLength\":64},\"maxItems\":4000}},\"required\":[\"items\"]}");
        StringBuilder input = new StringBuilder("{\"items\":[");
        int i = 0;
        while (input.length() < 60 * 1024 - 40) {
            input.append(i == 0 ? "" : ",")
                    .append("\"item-")
                    .append(String.format(Locale.ROOT, "%012d", i))
                    .append('"');
            i++;
        }
        input.append("]}");
        return workload(
                "60 KiB array (" + i + " strings)", schema, input.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The workload with stock networknt compiled from the same gate-admitted tree. */
    private static Workload workload(String name, CompiledSchema schema, byte[] input) {
        JsonNode tree = PLAIN.readTree(schema.json());
        JsonNode admitted = ((SubsetGate.Admitted) SubsetGate.check(tree, true, "")).normalized();
        Schema stock = STOCK.getSchema(admitted);
        stock.initializeValidators();
        return new Workload(name, schema, stock, input);
    }

    private static CompiledSchema compile(String json) {
        return SchemaGate.compile(SchemaRole.INPUT, json).compiled().orElseThrow();
    }
}
