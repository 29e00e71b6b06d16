package dev.skillgate.benchmarks;

import java.nio.file.Path;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prints a JMH JSON result file ({@code -rf json -rff FILE}) as a Markdown table: benchmark,
 * parameters, score with its 99.9% error, unit. Reads only what JMH wrote.
 */
public final class JmhTable {
    private JmhTable() {}

    public static void main(String[] args) {
        JsonNode results =
                JsonMapper.builder().build().readTree(Path.of(args[0]).toFile());
        System.out.println("| benchmark | parameters | score ± error (99.9%) | unit | mode |");
        System.out.println("|---|---|---:|---|---|");
        for (JsonNode r : results) {
            String name = r.get("benchmark").asString();
            name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
            StringBuilder params = new StringBuilder();
            JsonNode p = r.get("params");
            if (p != null) {
                p.properties()
                        .forEach(e -> params.append(params.length() == 0 ? "" : ", ")
                                .append(e.getKey())
                                .append('=')
                                .append(e.getValue().asString()));
            }
            JsonNode m = r.get("primaryMetric");
            double score = m.get("score").asDouble();
            double error = m.get("scoreError").asDouble();
            System.out.printf(
                    Locale.ROOT,
                    "| `%s` | %s | %s ± %s | %s | %s |%n",
                    name,
                    params,
                    format(score),
                    Double.isNaN(error) ? "?" : format(error),
                    m.get("scoreUnit").asString(),
                    r.get("mode").asString());
        }
    }

    private static String format(double v) {
        if (v >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
