package dev.skillgate.benchmarks.corpus;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The invocation workloads of the protocol benchmarks and of the ajv comparison: an input schema
 * inside the subset of SPEC §6 and one input valid against it. The same three shapes as the
 * protocol section of {@code docs/performance.md}: a small object, a 50-property nested object and a 60 KiB
 * array.
 *
 * <p>Guaranteed: each input is valid against its schema (the benchmarks check it before
 * measuring). Not guaranteed: that the shapes are typical of any particular skill.
 */
public final class ProtocolWorkloads {
    private ProtocolWorkloads() {}

    /**
     * One workload.
     *
     * @param id short identifier (a JMH parameter value)
     * @param label what it is, for tables
     * @param schemaJson the input schema
     * @param input a valid invocation
     */
    public record Workload(String id, String label, String schemaJson, byte[] input) {
        public Workload {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(schemaJson, "schemaJson");
            input = input.clone();
        }

        @Override
        public byte[] input() {
            return input.clone();
        }
    }

    /** All three, smallest first. */
    public static List<Workload> all() {
        return List.of(small(), nested(), array60k());
    }

    /** The workload with this {@link Workload#id()}. */
    public static Workload byId(String id) {
        return all().stream()
                .filter(w -> w.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no workload " + id));
    }

    /** Five properties: bounded string, bounded integer, enum, array of strings, two-branch anyOf. */
    public static Workload small() {
        String schema = "{\"type\":\"object\",\"properties\":{"
                + "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},"
                + "\"mode\":{\"enum\":[\"fast\",\"thorough\"]},"
                + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":8},"
                + "\"id\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}},"
                + "\"required\":[\"query\"],\"additionalProperties\":false}";
        String input =
                "{\"query\":\"weather in Lisbon\",\"limit\":10,\"mode\":\"fast\",\"tags\":[\"a\",\"b\"],\"id\":42}";
        return new Workload("small", "small object (5 properties)", schema, utf8(input));
    }

    /** Fifty properties: strings, numbers, booleans, ten nested objects, ten arrays of enums. */
    public static Workload nested() {
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
                            .append("\":{\"type\":\"object\",\"properties\":{"
                                    + "\"x\":{\"type\":\"integer\"},\"y\":{\"type\":\"integer\"},"
                                    + "\"label\":{\"type\":\"string\"}},\"required\":[\"x\",\"y\"],"
                                    + "\"additionalProperties\":false}");
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
                            .append("\":{\"type\":\"array\",\"items\":{\"enum\":[\"red\",\"green\",\"blue\"]},"
                                    + "\"maxItems\":10}");
                    input.append(sep).append("\"a").append(i).append("\":[\"red\",\"blue\",\"green\"]");
                }
            }
        }
        schema.append("},\"additionalProperties\":false}");
        input.append('}');
        return new Workload("nested", "nested object (50 properties)", schema.toString(), utf8(input.toString()));
    }

    /** One property holding about 3,000 strings under {@code maxLength}; just under 60 KiB. */
    public static Workload array60k() {
        String schema = "{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\",\"maxLength\":64},\"maxItems\":4000}},\"required\":[\"items\"]}";
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
        return new Workload("array60k", "60 KiB array (" + i + " strings)", schema, utf8(input.toString()));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
